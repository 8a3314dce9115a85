// Arrays the way XmlSerializer can shape them: unwrapped ([XmlElement] on an array member: repeated
// elements with no wrapper), wrapped and renamed ([XmlArray]/[XmlArrayItem]), an unwrapped array result,
// and a jagged array.
using System.Web.Services;
using System.Xml.Serialization;

namespace Constructs
{
    public class Basket
    {
        public string Owner;

        [XmlElement("Tag")]
        public string[] Tags;

        [XmlArray("Lines"), XmlArrayItem("Line")]
        public BasketLine[] Lines;

        [XmlElement("Quantity")]
        public int[] Quantities;
    }

    public class BasketLine
    {
        public string Sku;
        public int Count;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/arrays/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class UnwrappedArrays : WebService
    {
        [WebMethod(Description = "A basket: Tag and Quantity are unwrapped arrays, Lines is wrapped and renamed.")]
        public Basket GetBasket()
        {
            return new Basket
            {
                Owner = "alice",
                Tags = new[] { "gift", "express" },
                Lines = new[] { new BasketLine { Sku = "A", Count = 2 }, new BasketLine { Sku = "B", Count = 1 } },
                Quantities = new[] { 2, 1 },
            };
        }

        [WebMethod(Description = "Echoes a basket.")]
        public Basket EchoBasket(Basket basket)
        {
            return basket;
        }

        [WebMethod(Description = "An array result whose items are unwrapped: repeated Number elements.")]
        [return: XmlElement("Number")]
        public int[] Numbers(int count)
        {
            var result = new int[count < 0 ? 0 : count > 10 ? 10 : count];
            for (int i = 0; i < result.Length; i++) result[i] = i * i;
            return result;
        }

        [WebMethod(Description = "An array parameter whose items are unwrapped (repeated Item elements); answers their sum.")]
        public int Sum([XmlElement("Item")] int[] items)
        {
            int sum = 0;
            if (items != null) foreach (var i in items) sum += i;
            return sum;
        }

        [WebMethod(Description = "A jagged array (array of arrays).")]
        public int[][] Matrix()
        {
            return new[] { new[] { 1, 2 }, new[] { 3 } };
        }
    }
}
