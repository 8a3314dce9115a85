// [SoapDocumentMethod] and [SoapRpcMethod] variants found in public services: a bare (unwrapped) message,
// renamed request/response elements, a custom SOAPAction, a one-way method, another request namespace, and
// an RPC/encoded-style method ([SoapRpcMethod], style="rpc").
using System.Web.Services;
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
