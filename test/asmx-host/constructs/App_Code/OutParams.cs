// Out and ref parameters as public ASMX services use them (webservicex's GenericNAICS: `bool
// GetNAICSByID(string code, out NAICSList data)`): a record out parameter beside a result, void methods
// with out parameters only, a ref parameter, and out and ref parameters mixed with in ones. ASMX writes
// them in the response element after {Op}Result and leaves these methods off HTTP GET/POST.
using System;
using System.Web.Services;

namespace Constructs
{
    public class Item
    {
        public string Code;
        public int Count;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/outparams/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class OutParams : WebService
    {
        [WebMethod(Description = "Whether the code is known; the item in item (null when not).")]
        public bool Lookup(string code, out Item item)
        {
            item = code == "A1" ? new Item { Code = "A1", Count = 3 } : null;
            return item != null;
        }

        [WebMethod(Description = "The first word of text and how many words it has; nothing returned.")]
        public void Split(string text, out string head, out int count)
        {
            var words = (text ?? "").Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
            head = words.Length > 0 ? words[0] : null;
            count = words.Length;
        }

        [WebMethod(Description = "Adds by to counter (a ref parameter) and returns the old value.")]
        public int Bump(ref int counter, int by)
        {
            var old = counter;
            counter += by;
            return old;
        }

        [WebMethod(Description = "Out, ref and in mixed: before gets x - 1, note gets a suffix, returns x * 2.")]
        public string Mixed(out int before, ref string note, int x)
        {
            before = x - 1;
            note = (note ?? "(null)") + "!";
            return "x*2=" + (x * 2);
        }
    }
}
