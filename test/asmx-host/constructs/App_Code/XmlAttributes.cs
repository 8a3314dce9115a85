// Records with members serialized as XML attributes ([XmlAttribute]), text content ([XmlText]) and a
// renamed element ([XmlElement("...")]).
using System;
using System.Web.Services;
using System.Xml.Serialization;

namespace Constructs
{
    public class Price
    {
        [XmlAttribute("currency")]
        public string Currency;

        [XmlText]
        public decimal Amount;
    }

    public class Product
    {
        [XmlAttribute]
        public int Id;

        [XmlAttribute("sku")]
        public string Sku;

        [XmlAttribute]
        public DateTime Added;

        [XmlElement("Title")]
        public string Name;

        public Price Price;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/attributes/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class XmlAttributes : WebService
    {
        [WebMethod(Description = "A product: Id, sku and Added are attributes, Price has an attribute and text.")]
        public Product GetProduct(int id)
        {
            return new Product { Id = id, Sku = "SKU-" + id, Added = new DateTime(2024, 2, 3, 4, 5, 6, DateTimeKind.Utc), Name = "Widget", Price = new Price { Currency = "EUR", Amount = 9.5m } };
        }

        [WebMethod(Description = "Echoes a product.")]
        public Product EchoProduct(Product product)
        {
            return product;
        }
    }
}
