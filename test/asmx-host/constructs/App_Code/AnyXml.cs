// XML carried as XML: XmlElement and XmlNode results and parameters (xs:any), a record with an XmlElement
// member and [XmlAnyElement]/[XmlAnyAttribute] catch-alls, and a string parameter for the
// string-with-child-elements case.
using System.Web.Services;
using System.Xml;
using System.Xml.Serialization;

namespace Constructs
{
    public class Envelope
    {
        public string Kind;
        public XmlElement Payload;

        [XmlAnyElement]
        public XmlElement[] Extra;

        [XmlAnyAttribute]
        public XmlAttribute[] ExtraAttributes;
    }

    [WebService(Namespace = "http://tempuri.org/constructs/anyxml/")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class AnyXml : WebService
    {
        static XmlDocument Doc(string xml)
        {
            var d = new XmlDocument();
            d.LoadXml(xml);
            return d;
        }

        [WebMethod(Description = "An XmlElement result: a small document of another namespace.")]
        public XmlElement GetElement()
        {
            return Doc("<order xmlns=\"urn:example:orders\" id=\"7\"><line sku=\"A\">2</line><line sku=\"B\">1</line></order>").DocumentElement;
        }

        [WebMethod(Description = "An XmlNode result (what DailyInfo-style ...XML methods return).")]
        public XmlNode GetNode()
        {
            return Doc("<Rates><Rate code=\"USD\">1.08</Rate></Rates>").DocumentElement;
        }

        [WebMethod(Description = "Echoes an XmlElement parameter; says its name and namespace.")]
        public string DescribeElement(XmlElement element)
        {
            if (element == null) return "null";
            return "{" + element.NamespaceURI + "}" + element.LocalName + " children=" + element.ChildNodes.Count;
        }

        [WebMethod(Description = "Echoes an XmlNode back.")]
        public XmlNode EchoNode(XmlNode node)
        {
            return node;
        }

        [WebMethod(Description = "A record with an XmlElement member and any-element/any-attribute catch-alls.")]
        public Envelope GetEnvelope()
        {
            var d = Doc("<x xmlns:e=\"urn:example:extra\" e:flag=\"on\"><payload xmlns=\"urn:example:p\">data</payload><e:note>first</e:note><e:note>second</e:note></x>");
            var root = d.DocumentElement;
            return new Envelope
            {
                Kind = "sample",
                Payload = (XmlElement)root.ChildNodes[0],
                Extra = new[] { (XmlElement)root.ChildNodes[1], (XmlElement)root.ChildNodes[2] },
                ExtraAttributes = new[] { root.Attributes[1] },
            };
        }

        [WebMethod(Description = "Echoes a record with XML members.")]
        public Envelope EchoEnvelope(Envelope envelope)
        {
            return envelope;
        }

        [WebMethod(Description = "Echoes a string (for sending one with child elements).")]
        public string EchoText(string text)
        {
            return text == null ? "(null)" : "[" + text + "]";
        }
    }
}
