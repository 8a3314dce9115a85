// Overloaded methods: ASMX needs [WebMethod(MessageName = ...)] for the second overload, and WS-I Basic
// Profile conformance off (ConformsTo = None), or the service refuses to start.
using System.Web.Services;

namespace Constructs
{
    [WebService(Namespace = "http://tempuri.org/constructs/overloads/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.None)]
    public class Overloads : WebService
    {
        [WebMethod(Description = "Adds two integers.")]
        public int Add(int a, int b)
        {
            return a + b;
        }

        [WebMethod(MessageName = "AddDoubles", Description = "Adds two doubles (an overload of Add).")]
        public double Add(double a, double b)
        {
            return a + b;
        }

        [WebMethod(MessageName = "AddThree", Description = "Adds three integers (another overload of Add).")]
        public int Add(int a, int b, int c)
        {
            return a + b + c;
        }

        [WebMethod(MessageName = "Service.Ping", Description = "A MessageName with a dot, as some public services use.")]
        public string Ping()
        {
            return "pong";
        }
    }
}
