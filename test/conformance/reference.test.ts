// The reference peer is only as good as its fidelity to ../shared/wire/README.md: here it reproduces
// that page's samples byte for byte (requests as a .NET client sends them, answers as ASMX writes them).

import { describe, expect, it } from "vitest";
import { referenceRequest } from "./reference/request.js";
import { referenceResponse, type WireRecord } from "./reference/response.js";
import { loadReferenceService, type RefOperation } from "./reference/spec.js";

const service = loadReferenceService();
function op(name: string): RefOperation {
  const found = service.operations.get(name);
  if (!found) throw new Error(name);
  return found;
}

const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const SOAP11_OPEN = `${DECL}<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>`;
const SOAP12_OPEN = `${DECL}<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>`;
const CLOSE = "</soap:Body></soap:Envelope>";
const ARRAY_ATTRS =
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://tempuri.org/"';

describe("reference requests match wire/README.md", () => {
  it("§2 SOAP 1.1 InsertSubscriberSid", () => {
    const values = {
      strUsername: "u",
      strPassword: "p",
      strEmail: "a@b",
      strName: "N",
      strFormat: "HTML",
      strCountryCode: "46",
      strPhoneNumber: "123",
      strMailingListID: "1",
    };
    expect(referenceRequest(op("InsertSubscriberSid"), "soap11", values)).toEqual({
      method: "POST",
      path: "",
      query: "",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '"http://tempuri.org/InsertSubscriberSid"' },
      body:
        `${SOAP11_OPEN}<InsertSubscriberSid xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword><strEmail>a@b</strEmail><strName>N</strName>` +
        `<strFormat>HTML</strFormat><strCountryCode>46</strCountryCode><strPhoneNumber>123</strPhoneNumber><strMailingListID>1</strMailingListID></InsertSubscriberSid>${CLOSE}`,
    });
  });

  it("§3 SOAP 1.2 SendSmsWithSenderName", () => {
    const values = {
      strUsername: "u",
      strPassword: "p",
      senderName: "Sender",
      strCountryCode: "46",
      strPhoneNumber: "701234567",
      strMessage: "hi",
    };
    const request = referenceRequest(op("SendSmsWithSenderName"), "soap12", values);
    expect(request.headers).toEqual({
      "content-type": 'application/soap+xml; charset=utf-8; action="http://tempuri.org/SendSmsWithSenderName"',
    });
    expect(request.body).toBe(
      `${SOAP12_OPEN}<SendSmsWithSenderName xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword><senderName>Sender</senderName>` +
        `<strCountryCode>46</strCountryCode><strPhoneNumber>701234567</strPhoneNumber><strMessage>hi</strMessage></SendSmsWithSenderName>${CLOSE}`,
    );
  });

  it("§4 HTTP GET and HTTP POST", () => {
    const get = referenceRequest(op("GetReportViewsByDateInterval"), "httpGet", {
      strUsername: "u",
      strPassword: "p",
      strSendQueueId: "1",
      datIntervalFrom: "2024-01-01T00:00:00",
      datIntervalTo: "2024-02-01T00:00:00",
      ddField: "DD3",
    });
    expect(`${get.method} /ExternalAPIService.asmx${get.path}?${get.query}`).toBe(
      "GET /ExternalAPIService.asmx/GetReportViewsByDateInterval?strUsername=u&strPassword=p&strSendQueueId=1&datIntervalFrom=2024-01-01T00%3A00%3A00&datIntervalTo=2024-02-01T00%3A00%3A00&ddField=DD3",
    );
    const post = referenceRequest(op("InsertCsvSubscribersWithDemDataUpdateOption"), "httpPost", {
      strUsername: "u",
      strPassword: "p",
      strMailingListId: "1",
      strCsvData: "a@b,N,HTML\nc@d,M,Text",
      strUpdate: "true",
    });
    expect(post).toEqual({
      method: "POST",
      path: "/InsertCsvSubscribersWithDemDataUpdateOption",
      query: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "strUsername=u&strPassword=p&strMailingListId=1&strCsvData=a%40b%2CN%2CHTML%0Ac%40d%2CM%2CText&strUpdate=true",
    });
  });
});

describe("reference responses match wire/README.md", () => {
  it("§2 SOAP 1.1 scalar", () => {
    expect(referenceResponse(op("InsertSubscriberSid"), "soap11", "1234567890123", {}).body).toBe(
      `${SOAP11_OPEN}<InsertSubscriberSidResponse xmlns="http://tempuri.org/"><InsertSubscriberSidResult>1234567890123</InsertSubscriberSidResult></InsertSubscriberSidResponse>${CLOSE}`,
    );
  });

  it("§3 SOAP 1.2 single record", () => {
    const answer = referenceResponse(
      op("SendSmsWithSenderName"),
      "soap12",
      { Id: "99", CreditCost: "1.5", TotalCredits: "98.25" },
      {},
    );
    expect(answer.headers).toEqual({ "content-type": "application/soap+xml; charset=utf-8" });
    expect(answer.body).toContain(
      '<SendSmsWithSenderNameResponse xmlns="http://tempuri.org/"><SendSmsWithSenderNameResult><Id>99</Id><CreditCost>1.5</CreditCost><TotalCredits>98.25</TotalCredits></SendSmsWithSenderNameResult></SendSmsWithSenderNameResponse>',
    );
  });

  it("§4 HTTP documents: scalar, list, empty list, record", () => {
    expect(referenceResponse(op("InsertSubscriberSid"), "httpGet", "1234567890123", {}).body).toBe(
      `${DECL}\n<long xmlns="http://tempuri.org/">1234567890123</long>`,
    );
    const trigger = { Id: "1", Name: "t1", Created: "2024-05-06T07:08:09", MailinglistId: "5", MailinglistName: "L" };
    expect(referenceResponse(op("GetTriggerIdForAccount"), "httpPost", [trigger], {}).body).toBe(
      `${DECL}\n<ArrayOfTriggerResult ${ARRAY_ATTRS}>\n  <TriggerResult>\n    <Id>1</Id>\n    <Name>t1</Name>\n` +
        "    <Created>2024-05-06T07:08:09</Created>\n    <MailinglistId>5</MailinglistId>\n    <MailinglistName>L</MailinglistName>\n" +
        "  </TriggerResult>\n</ArrayOfTriggerResult>",
    );
    expect(referenceResponse(op("GetNewsletterFilters"), "httpGet", [], {}).body).toBe(
      `${DECL}\n<ArrayOfNewsletterFilterResult ${ARRAY_ATTRS} />`,
    );
    expect(
      referenceResponse(
        op("SendSmsWithSenderName"),
        "httpGet",
        { Id: "99", CreditCost: "1.5", TotalCredits: "98.25" },
        {},
      ).body,
    ).toBe(
      `${DECL}\n<SmsSingleMessageResult ${ARRAY_ATTRS}>\n  <Id>99</Id>\n  <CreditCost>1.5</CreditCost>\n  <TotalCredits>98.25</TotalCredits>\n</SmsSingleMessageResult>`,
    );
  });

  it("§5 DataSet (the page's sample has no Name column; the spec adds one)", () => {
    const base = op("GetReportViewsByDateInterval");
    if (base.result.kind !== "dataSet") throw new Error("not a DataSet");
    const withoutName = {
      ...base,
      result: { ...base.result, columns: base.result.columns.filter((c) => c.name !== "Name") },
    };
    const rows: WireRecord[] = [
      { SubscriberId: "7", Email: "e@x", ViewTime: "2024-05-06T07:08:09+00:00", DD3: "v1" },
      { SubscriberId: "8", Email: "f@x", ViewTime: "2024-05-06T07:08:09+00:00" },
    ];
    const column = (name: string, type: string) =>
      `                <xs:element name="${name}" type="xs:${type}" minOccurs="0" />`;
    const row = (n: number, cells: string[]) => [
      `      <Table diffgr:id="Table${n}" msdata:rowOrder="${n - 1}" diffgr:hasChanges="inserted">`,
      ...cells.map((c) => `        ${c}`),
      "      </Table>",
    ];
    expect(referenceResponse(withoutName, "httpGet", { rows }, { ddField: "DD3" }).body.split("\n")).toEqual([
      DECL,
      '<DataSet xmlns="http://tempuri.org/">',
      '  <xs:schema id="NewDataSet" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">',
      '    <xs:element name="NewDataSet" msdata:IsDataSet="true" msdata:UseCurrentLocale="true">',
      "      <xs:complexType>",
      '        <xs:choice minOccurs="0" maxOccurs="unbounded">',
      '          <xs:element name="Table">',
      "            <xs:complexType>",
      "              <xs:sequence>",
      column("SubscriberId", "long"),
      column("Email", "string"),
      column("ViewTime", "dateTime"),
      column("DD3", "string"),
      "              </xs:sequence>",
      "            </xs:complexType>",
      "          </xs:element>",
      "        </xs:choice>",
      "      </xs:complexType>",
      "    </xs:element>",
      "  </xs:schema>",
      '  <diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1">',
      '    <NewDataSet xmlns="">',
      ...row(1, [
        "<SubscriberId>7</SubscriberId>",
        "<Email>e@x</Email>",
        "<ViewTime>2024-05-06T07:08:09+00:00</ViewTime>",
        "<DD3>v1</DD3>",
      ]),
      ...row(2, [
        "<SubscriberId>8</SubscriberId>",
        "<Email>f@x</Email>",
        "<ViewTime>2024-05-06T07:08:09+00:00</ViewTime>",
      ]),
      "    </NewDataSet>",
      "  </diffgr:diffgram>",
      "</DataSet>",
    ]);
  });
});
