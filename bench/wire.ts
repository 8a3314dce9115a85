// The exact requests the benchmark sends, and the constants its servers answer with.

export const NS = "http://tempuri.org/";
export const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
export const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";

/** The subscriber id every InsertSubscriberSid handler returns. */
export const SID = 1234567890123n;
/** Records in the GetTriggerIdForAccount answer. */
export const LIST_SIZE = 100;

/** A TriggerResult record's markup around its five field texts, as the compact (SOAP) answer holds it. */
export const TRIGGER_MARKUP = [
  "<TriggerResult><Id>",
  "</Id><Name>",
  "</Name><Created>",
  "</Created><MailinglistId>",
  "</MailinglistId><MailinglistName>",
  "</MailinglistName></TriggerResult>",
] as const;

/** What every GetTriggerIdForAccount handler returns: LIST_SIZE trigger records. */
export function triggerRecords(): {
  Id: number;
  Name: string;
  Created: string;
  MailinglistId: number;
  MailinglistName: string;
}[] {
  return Array.from({ length: LIST_SIZE }, (_, i) => ({
    Id: i + 1,
    Name: `trigger ${i + 1}`,
    Created: "2024-05-06T07:08:09",
    MailinglistId: 5,
    MailinglistName: "List",
  }));
}

const envelope = (envNs: string, inner: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envNs}" ` +
  `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>` +
  `${inner}</soap:Body></soap:Envelope>`;

const insertSubscriberSid =
  `<InsertSubscriberSid xmlns="${NS}"><strUsername>u</strUsername><strPassword>p</strPassword>` +
  `<strEmail>a@b</strEmail><strName>N</strName><strFormat>HTML</strFormat><strCountryCode>46</strCountryCode>` +
  `<strPhoneNumber>123</strPhoneNumber><strMailingListID>1</strMailingListID></InsertSubscriberSid>`;

/** docs/wire.md §2: InsertSubscriberSid exactly as a .NET-generated client sends it (one line). */
export const SOAP11_INSERT = envelope(SOAP11_NS, insertSubscriberSid);
export const SOAP12_INSERT = envelope(SOAP12_NS, insertSubscriberSid);
export const SOAP11_TRIGGERS = envelope(
  SOAP11_NS,
  `<GetTriggerIdForAccount xmlns="${NS}"><strUsername>u</strUsername><strPassword>p</strPassword></GetTriggerIdForAccount>`,
);
/** A small read (the shadow proxy's bench mirrors it): GetRoiResults as a .NET client sends it. */
export const SOAP11_ROI = envelope(
  SOAP11_NS,
  `<GetRoiResults xmlns="${NS}"><strUsername>u</strUsername><strPassword>p</strPassword><strSendQueueId>17</strSendQueueId></GetRoiResults>`,
);
/** What every GetRoiResults handler returns. */
export const ROI_ROWS = [
  { Url: "https://example.test/a", Clicks: 3, Closures: 1, Value: 12.5 },
  { Url: "https://example.test/b", Clicks: 0, Closures: 0, Value: 0 },
];
/** The same InsertSubscriberSid parameters as an HTTP GET query / HTTP POST form. */
export const INSERT_FORM =
  "strUsername=u&strPassword=p&strEmail=a%40b&strName=N&strFormat=HTML&strCountryCode=46&strPhoneNumber=123&strMailingListID=1";

/** The floor server's fixed answer: a SOAP 1.1 InsertSubscriberSid response of exactly 400 bytes. */
export const FLOOR_RESPONSE = envelope(
  SOAP11_NS,
  `<InsertSubscriberSidResponse xmlns="${NS}"><InsertSubscriberSidResult>123456789012</InsertSubscriberSidResult></InsertSubscriberSidResponse>`,
);
if (Buffer.byteLength(FLOOR_RESPONSE) !== 400)
  throw new Error(`floor response is ${Buffer.byteLength(FLOOR_RESPONSE)} bytes, not 400`);

export interface BenchRequest {
  readonly method: "GET" | "POST";
  /** Path and query below http://host:port. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** A string the 200 answer must contain (checked once before the load starts). */
  readonly expect: string;
}

const ENDPOINT = "/ExternalAPIService.asmx";

export const requests = {
  soap11Insert: {
    method: "POST",
    path: ENDPOINT,
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: `"${NS}InsertSubscriberSid"` },
    body: SOAP11_INSERT,
    expect: `<InsertSubscriberSidResult>${SID}</InsertSubscriberSidResult>`,
  },
  soap12Insert: {
    method: "POST",
    path: ENDPOINT,
    headers: { "content-type": `application/soap+xml; charset=utf-8; action="${NS}InsertSubscriberSid"` },
    body: SOAP12_INSERT,
    expect: `<InsertSubscriberSidResult>${SID}</InsertSubscriberSidResult>`,
  },
  httpGetInsert: {
    method: "GET",
    path: `${ENDPOINT}/InsertSubscriberSid?${INSERT_FORM}`,
    headers: {},
    body: "",
    expect: `<long xmlns="${NS}">${SID}</long>`,
  },
  httpPostInsert: {
    method: "POST",
    path: `${ENDPOINT}/InsertSubscriberSid`,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: INSERT_FORM,
    expect: `<long xmlns="${NS}">${SID}</long>`,
  },
  soap11Triggers: {
    method: "POST",
    path: ENDPOINT,
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: `"${NS}GetTriggerIdForAccount"` },
    body: SOAP11_TRIGGERS,
    expect: `<MailinglistName>List</MailinglistName></TriggerResult></GetTriggerIdForAccountResult>`,
  },
} satisfies Record<string, BenchRequest>;
