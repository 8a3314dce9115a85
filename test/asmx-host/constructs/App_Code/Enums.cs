// Enums: plain, [Flags] (a space-separated list in XML), renamed values ([XmlEnum]), as results,
// parameters (also on HTTP GET/POST) and array items.
using System;
using System.Web.Services;
using System.Xml.Serialization;

namespace Constructs
{
    public enum Weekday { Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday }

    [Flags]
    public enum Permissions { None = 0, Read = 1, Write = 2, Delete = 4, All = Read | Write | Delete }

    public enum Level
    {
        [XmlEnum("low-level")] Low,
        [XmlEnum("mid")] Medium,
        High,
    }

    [WebService(Namespace = "http://tempuri.org/constructs/enums/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class Enums : WebService
    {
        [WebMethod(Description = "The day after the given one.")]
        public Weekday NextDay(Weekday day)
        {
            return (Weekday)(((int)day + 1) % 7);
        }

        [WebMethod(Description = "Permissions plus Write; a [Flags] enum in and out.")]
        public Permissions Grant(Permissions current)
        {
            return current | Permissions.Write;
        }

        [WebMethod(Description = "The level above; values renamed with [XmlEnum].")]
        public Level Raise(Level level)
        {
            return level == Level.Low ? Level.Medium : Level.High;
        }

        [WebMethod(Description = "The weekend days, as an array of enum values.")]
        public Weekday[] Weekend()
        {
            return new[] { Weekday.Saturday, Weekday.Sunday };
        }
    }
}
