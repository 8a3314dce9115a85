// Nullable value types (int?, DateTime?, an enum?, decimal?) as results, parameters and record fields.
using System;
using System.Web.Services;

namespace Constructs
{
    public enum Color { Red, Green, Blue }

    public class Reading
    {
        public int? Value;
        public DateTime? At;
        public Color? Color;
        public decimal? Amount;
        public string Note;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/nullables/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class Nullables : WebService
    {
        [WebMethod(Description = "The number after n, or null when n is null or negative.")]
        public int? Next(int? n)
        {
            if (n == null || n < 0) return null;
            return n + 1;
        }

        [WebMethod(Description = "When the user was last seen; null for an unknown user.")]
        public DateTime? LastSeen(string user)
        {
            if (user == "alice") return new DateTime(2024, 5, 6, 7, 8, 9, DateTimeKind.Utc);
            return null;
        }

        [WebMethod(Description = "A user's favourite colour; null when unknown.")]
        public Color? Favourite(string user)
        {
            if (user == "alice") return Color.Green;
            return null;
        }

        [WebMethod(Description = "Describes which nullable parameters arrived.")]
        public string Describe(int? count, DateTime? when, Color? color, bool? flag)
        {
            return "count=" + (count.HasValue ? count.Value.ToString() : "null")
                + " when=" + (when.HasValue ? when.Value.ToString("o") : "null")
                + " color=" + (color.HasValue ? color.Value.ToString() : "null")
                + " flag=" + (flag.HasValue ? flag.Value.ToString() : "null");
        }

        [WebMethod(Description = "A record whose nullable fields are set when full is true, null otherwise.")]
        public Reading GetReading(bool full)
        {
            if (!full) return new Reading { Note = "empty" };
            return new Reading { Value = 42, At = new DateTime(2024, 1, 2, 3, 4, 5, DateTimeKind.Utc), Color = Color.Blue, Amount = 12.34m, Note = "full" };
        }

        [WebMethod(Description = "Echoes a record with nullable fields.")]
        public Reading EchoReading(Reading reading)
        {
            return reading;
        }
    }
}
