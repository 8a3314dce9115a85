<%@ WebService Language="C#" Class="Fixtures.Calculator" %>
// A first fixture: inline code, two operations, one string and one number answer.
using System.Web.Services;

namespace Fixtures
{
    [WebService(Namespace = "http://tempuri.org/calculator/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class Calculator : WebService
    {
        [WebMethod(Description = "Adds two integers.")]
        public int Add(int a, int b)
        {
            return a + b;
        }

        [WebMethod]
        public string Echo(string text)
        {
            return text;
        }
    }
}
