// The SOAP header fixture (code-behind for Headers.asmx): a method without any [SoapHeader], one that
// declares a required AuthHeader and never touches DidUnderstand, one that declares it and marks it not
// understood, and call counters that show whether a faulted call reached the method.
using System.Web.Services;
using System.Web.Services.Protocols;

namespace Fixtures
{
    public class AuthHeader : SoapHeader
    {
        public string Username;
        public string Password;
    }

    [WebService(Namespace = "http://tempuri.org/headers/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class Headers : WebService
    {
        public AuthHeader Auth;

        static int plainCalls;

        [WebMethod]
        public string Plain(string text)
        {
            System.Threading.Interlocked.Increment(ref plainCalls);
            return text;
        }

        [WebMethod(Description = "How many times Plain ran since the host started.")]
        public int PlainCalls()
        {
            return System.Threading.Volatile.Read(ref plainCalls);
        }

#pragma warning disable 618 // SoapHeaderAttribute.Required is obsolete in .NET 2.0+; what the runtime does with it is the point
        [WebMethod]
        [SoapHeader("Auth", Required = true)]
        public string Secured(string text)
        {
            return Describe(text);
        }

#pragma warning restore 618

        static int rejectingCalls;

        [WebMethod]
        [SoapHeader("Auth")]
        public string SecuredRejecting(string text)
        {
            System.Threading.Interlocked.Increment(ref rejectingCalls);
            if (Auth != null) Auth.DidUnderstand = false;
            return Describe(text);
        }

        [WebMethod(Description = "How many times SecuredRejecting ran since the host started.")]
        public int RejectingCalls()
        {
            return System.Threading.Volatile.Read(ref rejectingCalls);
        }

        string Describe(string text)
        {
            if (Auth == null) return text + "; no Auth header";
            return text + "; Auth user=" + Auth.Username + " mustUnderstand=" + Auth.MustUnderstand + " didUnderstand=" + Auth.DidUnderstand;
        }
    }
}
