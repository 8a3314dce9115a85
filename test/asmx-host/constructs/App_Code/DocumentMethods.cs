// [SoapDocumentMethod] and [SoapRpcMethod] variants found in public services: a bare (unwrapped) message,
// renamed request/response elements, a custom SOAPAction, a one-way method, another request namespace, and
// an RPC/encoded-style method ([SoapRpcMethod], style="rpc"); bare methods as public services have them: a
// null result, no result, an XmlNode parameter and result (the SEFAZ services), and a ref parameter with a
// renamed result element (3PL Central's).
using System.Web.Services;
using System.Xml;
using System.Xml.Serialization;
using System.Web.Services.Protocols;

namespace Constructs
{
    public class Quote
    {
        public string Symbol;
        public decimal Price;
    }

    // WS-I Basic Profile conformance off: with it claimed, the RPC method makes ASP.NET refuse the service.
    [WebService(Namespace = "http://tempuri.org/constructs/document/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.None)]
    public class DocumentMethods : WebService
    {
        static int notified;

        [WebMethod(Description = "Bare parameters: the body holds the parameter element itself, no wrapper.")]
        [SoapDocumentMethod(ParameterStyle = SoapParameterStyle.Bare)]
        public Quote GetQuote(string symbol)
        {
            return new Quote { Symbol = symbol, Price = 101.25m };
        }

        [WebMethod(Description = "Bare, a string result: null when the text is null.")]
        [SoapDocumentMethod(ParameterStyle = SoapParameterStyle.Bare)]
        public string Echo(string text)
        {
            return text;
        }

        [WebMethod(Description = "Bare, no result.")]
        [SoapDocumentMethod(ParameterStyle = SoapParameterStyle.Bare)]
        public void Forget(string key)
        {
        }

        [WebMethod(Description = "Bare, an XmlNode parameter and result: the node wrapped in <echo>.")]
        [SoapDocumentMethod(ParameterStyle = SoapParameterStyle.Bare)]
        public XmlNode Wrap(XmlNode dadosMsg)
        {
            var d = new XmlDocument();
            var echo = d.CreateElement("echo", "urn:example:wrap");
            echo.SetAttribute("had", dadosMsg == null ? "null" : dadosMsg.LocalName);
            if (dadosMsg != null) echo.AppendChild(d.ImportNode(dadosMsg, true));
            return echo;
        }

        [WebMethod(Description = "Bare, a ref parameter and the result element renamed Int32.")]
        [SoapDocumentMethod(ParameterStyle = SoapParameterStyle.Bare)]
        [return: XmlElement("Int32")]
        public int Count(string text, ref string warnings)
        {
            warnings = (warnings ?? "") + "counted;";
            return text == null ? -1 : text.Length;
        }

        [WebMethod(Description = "Renamed wrapper elements and a custom SOAPAction.")]
        [SoapDocumentMethod("urn:example:actions/lookup", RequestElementName = "LookupRequest", ResponseElementName = "LookupReply")]
        public string Lookup(string key)
        {
            return "value-of-" + key;
        }

        [WebMethod(Description = "A one-way method: no response message.")]
        [SoapDocumentMethod(OneWay = true)]
        public void Notify(string message)
        {
            System.Threading.Interlocked.Increment(ref notified);
        }

        [WebMethod(Description = "How many Notify calls ran.")]
        public int Notified()
        {
            return System.Threading.Volatile.Read(ref notified);
        }

        [WebMethod(Description = "Request and response elements in another namespace.")]
        [SoapDocumentMethod(RequestNamespace = "urn:example:other", ResponseNamespace = "urn:example:other")]
        public int Square(int n)
        {
            return n * n;
        }

        [WebMethod(Description = "An RPC-style method (style=\"rpc\", SOAP encoding).")]
        [SoapRpcMethod]
        public int Multiply(int a, int b)
        {
            return a * b;
        }
    }
}
