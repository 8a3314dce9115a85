// Primitive parameters and results for the HTTP GET/POST details: non-ASCII text (the %uXXXX escapes of
// .NET's HttpGet/HttpPost proxies), INF/-INF/NaN as numbers, and numbers' edge forms.
using System;
using System.Web.Services;

namespace Constructs
{
    [WebService(Namespace = "http://tempuri.org/constructs/http/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class HttpDetails : WebService
    {
        [WebMethod(Description = "Echoes the text with its length and the UTF-16 code units in hex.")]
        public string Echo(string text)
        {
            if (text == null) return "(null)";
            var units = new System.Text.StringBuilder();
            foreach (char c in text) units.Append(((int)c).ToString("X4")).Append(' ');
            return text + " |" + text.Length + "| " + units.ToString().TrimEnd();
        }

        [WebMethod(Description = "Doubles a double; says what arrived.")]
        public double Twice(double x)
        {
            return x * 2;
        }

        [WebMethod(Description = "Halves a float.")]
        public float Half(float x)
        {
            return x / 2;
        }

        [WebMethod(Description = "Adds one to a decimal.")]
        public decimal Increment(decimal x)
        {
            return x + 1;
        }

        [WebMethod(Description = "Infinity, negative infinity or NaN, by name.")]
        public double Special(string which)
        {
            switch (which)
            {
                case "inf": return double.PositiveInfinity;
                case "-inf": return double.NegativeInfinity;
                case "nan": return double.NaN;
                default: return 0;
            }
        }

        [WebMethod(Description = "The negation of a boolean.")]
        public bool Not(bool value)
        {
            return !value;
        }
    }
}
