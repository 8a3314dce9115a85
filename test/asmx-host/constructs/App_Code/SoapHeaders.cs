// SOAP headers as ASMX services use them: credentials in an AuthHeader : SoapHeader (the usual pattern), a
// header the service sends back (Direction Out), one that goes both ways (InOut), and Required.
using System;
using System.Web.Services;
using System.Web.Services.Protocols;

namespace Constructs
{
    public class AuthHeader : SoapHeader
    {
        public string Username;
        public string Password;
    }

    public class SessionHeader : SoapHeader
    {
        public string SessionId;
        public DateTime Expires;
    }

    public class TraceHeader : SoapHeader
    {
        public string CorrelationId;
        public int Hops;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/headers/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class SoapHeaders : WebService
    {
        public AuthHeader Auth;
        public SessionHeader Session;
        public TraceHeader Trace;

        static readonly DateTime Expiry = new DateTime(2030, 1, 2, 3, 4, 5, DateTimeKind.Utc);

#pragma warning disable 618 // Required is obsolete since .NET 2.0; what the runtime does with it is the point
        [WebMethod(Description = "Checks the credentials carried in AuthHeader; answers a SessionHeader.")]
        [SoapHeader("Auth", Required = true)]
        [SoapHeader("Session", Direction = SoapHeaderDirection.Out)]
        public bool Login()
        {
            if (Auth == null || Auth.Username != "alice" || Auth.Password != "wonderland") return false;
            Session = new SessionHeader { SessionId = "s-" + Auth.Username, Expires = Expiry };
            return true;
        }
#pragma warning restore 618

        [WebMethod(Description = "Who the AuthHeader names (an optional header: null without one).")]
        [SoapHeader("Auth")]
        public string WhoAmI()
        {
            return Auth == null ? null : Auth.Username;
        }

        [WebMethod(Description = "Echoes the text; the TraceHeader comes back with one more hop.")]
        [SoapHeader("Trace", Direction = SoapHeaderDirection.InOut)]
        public string Echo(string text)
        {
            if (Trace != null) Trace.Hops++;
            return text;
        }

        [WebMethod(Description = "A method taking a session header (in) and credentials, both optional.")]
        [SoapHeader("Session")]
        [SoapHeader("Auth")]
        public string Status()
        {
            return "session=" + (Session == null ? "none" : Session.SessionId) + " auth=" + (Auth == null ? "none" : Auth.Username);
        }
    }
}
