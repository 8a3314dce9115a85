// µs per read: the hand-written scanner against the fast-xml-parser reader.
// Run: npx tsx bench/xml-read.ts
import { readXml } from "../templates/runtime/xml/scan.js";
import { readXmlWithFastXmlParser } from "../templates/runtime/xml/fxp.js";
import type { XmlElement } from "../templates/runtime/xml/tree.js";

// wire/README.md §2: the SOAP 1.1 InsertSubscriberSid request as a .NET client sends it.
const SOAP11 =
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ` +
  `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>` +
  `<InsertSubscriberSid xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword>` +
  `<strEmail>a@b</strEmail><strName>N</strName><strFormat>HTML</strFormat><strCountryCode>46</strCountryCode>` +
  `<strPhoneNumber>123</strPhoneNumber><strMailingListID>1</strMailingListID></InsertSubscriberSid></soap:Body>` +
  `</soap:Envelope>`;

// wire/README.md §5: the DataSet result (schema + diffgram), HTTP GET/POST form.
const DATASET = `<?xml version="1.0" encoding="utf-8"?>
<DataSet xmlns="http://tempuri.org/">
  <xs:schema id="NewDataSet" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">
    <xs:element name="NewDataSet" msdata:IsDataSet="true" msdata:UseCurrentLocale="true">
      <xs:complexType>
        <xs:choice minOccurs="0" maxOccurs="unbounded">
          <xs:element name="Table">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="SubscriberId" type="xs:long" minOccurs="0" />
                <xs:element name="Email" type="xs:string" minOccurs="0" />
                <xs:element name="ViewTime" type="xs:dateTime" minOccurs="0" />
                <xs:element name="DD3" type="xs:string" minOccurs="0" />
              </xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:choice>
      </xs:complexType>
    </xs:element>
  </xs:schema>
  <diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1">
    <NewDataSet xmlns="">
      <Table diffgr:id="Table1" msdata:rowOrder="0" diffgr:hasChanges="inserted">
        <SubscriberId>7</SubscriberId>
        <Email>e@x</Email>
        <ViewTime>2024-05-06T07:08:09+00:00</ViewTime>
        <DD3>v1</DD3>
      </Table>
      <Table diffgr:id="Table2" msdata:rowOrder="1" diffgr:hasChanges="inserted">
        <SubscriberId>8</SubscriberId>
        <Email>f@x</Email>
        <ViewTime>2024-05-06T07:08:09+00:00</ViewTime>
      </Table>
    </NewDataSet>
  </diffgr:diffgram>
</DataSet>`;

type Reader = (text: string) => XmlElement;

let sink = 0;

/** Median of five timed runs of `iterations` reads each, in µs per read, after a warm-up. */
function measure(read: Reader, doc: string, iterations: number): number {
  for (let n = 0; n < iterations; n++) sink += read(doc).children.length;
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    for (let n = 0; n < iterations; n++) sink += read(doc).children.length;
    runs.push(Number(process.hrtime.bigint() - start) / 1000 / iterations);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

const docs: Array<[string, string, number]> = [
  ["SOAP 1.1 InsertSubscriberSid (§2)", SOAP11, 20_000],
  ["DataSet schema + diffgram (§5)", DATASET, 5_000],
];

const rows = docs.map(([name, doc, iterations]) => {
  const scan = measure(readXml, doc, iterations);
  const fxp = measure(readXmlWithFastXmlParser, doc, Math.ceil(iterations / 10));
  return { document: name, bytes: Buffer.byteLength(doc), "readXml µs": scan.toFixed(2),
    "fast-xml-parser reader µs": fxp.toFixed(2), ratio: `${(fxp / scan).toFixed(1)}x` };
});
console.table(rows);
if (sink === 0) console.log("(unreachable)");
