// Every request and success-response sample of the wire reference (docs/wire.md, captured from a real
// ASMX host; ../fixtures/wire-samples.ts reads them from that page) reproduced byte for byte, our own
// fault samples there too, and the host's faults and 500 texts matched in shape.

import { describe, expect, it } from "vitest";
// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../../generated/server-model.js";
import { bindingFactories } from "../fixtures/bindings.js";
import type { DataSetModel, OperationModel, BindingName } from "../../generated/runtime/model.js";
import { readParams, writeParams, type ParamValues } from "../../generated/runtime/codec/params.js";
import type { WireRequest } from "../../generated/runtime/protocol/binding.js";
import type { XmlElement } from "../../generated/runtime/xml/tree.js";
import { readXml } from "../../generated/runtime/xml/scan.js";
import { createHandler, ServiceError, type ExternalAPIService } from "../../generated/server.js";
import { sampleImplementation } from "../fixtures/fixture-server.js";
import {
  DATASET_COLUMNS,
  DATASET_DOCUMENT,
  EMPTY_LIST_DOCUMENT,
  GET_REQUEST_LINE,
  GET_REQUEST_REST,
  GET_REQUEST_VALUES,
  LONG_DOCUMENT,
  POST_REQUEST_BODY,
  POST_REQUEST_HEADERS,
  POST_REQUEST_LINE,
  POST_REQUEST_VALUES,
  readSamples,
  SMS_RECORD_DOCUMENT,
  SOAP11_FAULT_BODY,
  SOAP11_OPEN,
  SOAP11_REQUEST_BODY,
  SOAP11_REQUEST_HEADERS,
  SOAP11_REQUEST_LINE,
  SOAP11_REQUEST_VALUES,
  SOAP11_RESPONSE_BODY,
  SOAP12_OPEN,
  SOAP12_REQUEST_BODY,
  SOAP12_FAULT_BODY,
  SOAP12_REQUEST_CONTENT_TYPE,
  SOAP12_REQUEST_HEADERS,
  SOAP12_REQUEST_LINE,
  SOAP12_REQUEST_VALUES,
  SOAP_CLOSE,
  SOAP_LIST_FRAGMENT,
  SOAP_RECORD_FRAGMENT,
  TRIGGER_LIST_DOCUMENT,
  XML_DECLARATION,
} from "../fixtures/wire-samples.js";
import { ENDPOINT_PATH } from "./http-message.js";

const NS = "http://tempuri.org/";
const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";
const XML_NS = "http://www.w3.org/XML/1998/namespace";

const binding = (name: BindingName) => bindingFactories[name](service, { readXml });

// ---- helpers -------------------------------------------------------------------------------------

function requestLine(request: WireRequest): string {
  return `${request.method} ${ENDPOINT_PATH}${request.path}${request.query ? `?${request.query}` : ""}`;
}

function encode(name: BindingName, op: OperationModel, params: ParamValues): WireRequest {
  return binding(name).encodeRequest(op, writeParams(op, { strUsername: "u", strPassword: "p", ...params }));
}

/** The server's reading of a request: decodeRequest, then typed values. */
function decode(name: BindingName, request: WireRequest): { op: string; values: ParamValues } {
  const b = binding(name);
  const decoded = b.decodeRequest(request);
  return { op: decoded.op.name, values: readParams(decoded.op, decoded.texts, b.presence) };
}

/** The indented HTTP form of a document as the compact SOAP form: every line trimmed and joined. */
function compact(indented: string): string {
  return indented
    .split("\n")
    .map((line) => line.trim())
    .join("");
}

const TRIGGER = { Id: 1, Name: "t1", Created: "2024-05-06T07:08:09", MailinglistId: 5, MailinglistName: "L" };
const SMS = { Id: 99n, CreditCost: "1.5", TotalCredits: "98.25" };

// ---- §2 SOAP 1.1 ---------------------------------------------------------------------------------

describe("§2 SOAP 1.1", () => {
  const op = operations.InsertSubscriberSid;

  it("encodes the .NET client's request byte for byte", () => {
    const request = encode("soap11", op, SOAP11_REQUEST_VALUES);
    expect(requestLine(request)).toBe(SOAP11_REQUEST_LINE);
    expect(request.headers).toEqual(SOAP11_REQUEST_HEADERS);
    expect(request.body).toBe(SOAP11_REQUEST_BODY);
  });

  it("decodes the .NET client's request", () => {
    const request = {
      method: "POST",
      path: "",
      query: "",
      headers: SOAP11_REQUEST_HEADERS,
      body: SOAP11_REQUEST_BODY,
    } as const;
    expect(decode("soap11", request)).toEqual({ op: "InsertSubscriberSid", values: SOAP11_REQUEST_VALUES });
  });

  it("encodes the response byte for byte and reads it back", () => {
    const response = binding("soap11").encodeResponse(op, 1234567890123n, {});
    expect(response).toEqual({
      status: 200,
      headers: { "content-type": "text/xml; charset=utf-8" },
      body: SOAP11_RESPONSE_BODY,
    });
    expect(binding("soap11").decodeResponse(op, response, {})).toBe(1234567890123n);
  });

  it("repeats list records inside <OpResult>, named after the record type", () => {
    const response = binding("soap11").encodeResponse(operations.GetTriggerIdForAccount, [TRIGGER], {});
    expect(response.body).toBe(SOAP11_OPEN + SOAP_LIST_FRAGMENT + SOAP_CLOSE);
  });

  it("omits a null string field and sends non-ASCII as UTF-8, escaping only & < >", () => {
    const response = binding("soap11").encodeResponse(
      operations.GetTriggerIdForAccount,
      [{ ...TRIGGER, Name: null, MailinglistName: `Å & <日本> "q" 'a'` }],
      {},
    );
    expect(response.body).toContain(
      "<TriggerResult><Id>1</Id><Created>2024-05-06T07:08:09</Created><MailinglistId>5</MailinglistId>" +
        "<MailinglistName>Å &amp; &lt;日本&gt; \"q\" 'a'</MailinglistName></TriggerResult>",
    );
  });
});

// ---- §3 SOAP 1.2 ---------------------------------------------------------------------------------

describe("§3 SOAP 1.2", () => {
  const op = operations.SendSmsWithSenderName;

  it("encodes the .NET client's request byte for byte, the action in the content type", () => {
    const request = encode("soap12", op, SOAP12_REQUEST_VALUES);
    expect(requestLine(request)).toBe(SOAP12_REQUEST_LINE);
    expect(request.headers).toEqual(SOAP12_REQUEST_HEADERS);
    expect(request.body).toBe(SOAP12_REQUEST_BODY);
  });

  it("decodes the .NET client's request, with and without the action parameter", () => {
    const want = { op: "SendSmsWithSenderName", values: SOAP12_REQUEST_VALUES };
    for (const contentType of [SOAP12_REQUEST_CONTENT_TYPE, "application/soap+xml; charset=utf-8"]) {
      const request = {
        method: "POST",
        path: "",
        query: "",
        headers: { "content-type": contentType },
        body: SOAP12_REQUEST_BODY,
      } as const;
      expect(decode("soap12", request)).toEqual(want);
    }
  });

  it("puts a single record's fields directly inside <OpResult>", () => {
    const response = binding("soap12").encodeResponse(op, SMS, {});
    expect(response).toEqual({
      status: 200,
      headers: { "content-type": "application/soap+xml; charset=utf-8" },
      body: SOAP12_OPEN + SOAP_RECORD_FRAGMENT + SOAP_CLOSE,
    });
    expect(binding("soap12").decodeResponse(op, response, {})).toEqual(SMS);
  });
});

// ---- §4 HTTP GET and POST ------------------------------------------------------------------------

describe("§4 HTTP GET and HTTP POST", () => {
  it("sends every GET parameter in the query string, in order", () => {
    const request = encode("httpGet", operations.GetReportViewsByDateInterval, GET_REQUEST_VALUES);
    expect(requestLine(request)).toBe(GET_REQUEST_LINE);
    expect({ headers: request.headers, body: request.body }).toEqual(GET_REQUEST_REST);
    expect(GET_REQUEST_REST).toEqual({ headers: {}, body: "" });
  });

  it("sends the POST form byte for byte and decodes it", () => {
    const op = operations.InsertCsvSubscribersWithDemDataUpdateOption;
    const request = encode("httpPost", op, POST_REQUEST_VALUES);
    expect(requestLine(request)).toBe(POST_REQUEST_LINE);
    expect(request.headers).toEqual(POST_REQUEST_HEADERS);
    expect(request.body).toBe(POST_REQUEST_BODY);
    expect(decode("httpPost", request)).toEqual({ op: op.name, values: POST_REQUEST_VALUES });
  });

  it.each<{ name: string; op: OperationModel; result: unknown; want: string }>([
    {
      name: "<long> document",
      op: operations.InsertSubscriberSid,
      result: 1234567890123n,
      want: LONG_DOCUMENT,
    },
    {
      name: "ArrayOfTriggerResult document",
      op: operations.GetTriggerIdForAccount,
      result: [TRIGGER],
      want: TRIGGER_LIST_DOCUMENT,
    },
    {
      name: "empty list, self-closed",
      op: operations.GetNewsletterFilters,
      result: [],
      want: EMPTY_LIST_DOCUMENT,
    },
  ])("answers the $name byte for byte on GET and POST", ({ op, result, want }) => {
    for (const name of ["httpGet", "httpPost"] as const) {
      const response = binding(name).encodeResponse(op, result, {});
      expect(response).toEqual({
        status: 200,
        headers: { "content-type": "text/xml; charset=utf-8" },
        body: want,
      });
      expect(binding(name).decodeResponse(op, response, {})).toEqual(result);
    }
  });

  it("answers a single record with <SmsSingleMessageResult> as root and its fields as children", () => {
    const response = binding("httpGet").encodeResponse(operations.SendSmsWithSenderName, SMS, {});
    expect(response.body).toBe(SMS_RECORD_DOCUMENT);
  });
});

// ---- §5 DataSet ----------------------------------------------------------------------------------

describe("§5 DataSet", () => {
  // The reference's sample has four columns (SubscriberId, Email, ViewTime, DD3); our spec's ReportViews
  // also declares Name. To compare bytes, the writer gets a DataSetModel with exactly the sample's
  // columns (DD3 named by ddField, as in the spec); the reader is then checked against the real spec
  // model, which must read the sample by its inline schema and leave the undeclared Name column null.
  const real = operations.GetReportViewsByDateInterval;
  if (real.result.kind !== "dataSet") throw new Error("GetReportViewsByDateInterval returns a DataSet");
  const sampleModel: DataSetModel = {
    ...real.result.dataSet,
    columns: real.result.dataSet.columns.filter((c) => c.property !== "Name"),
  };
  const op: OperationModel = { ...real, result: { ...real.result, dataSet: sampleModel } };
  const request = { ddField: "DD3" };
  const rows = [
    { SubscriberId: 7n, Email: "e@x", ViewTime: "2024-05-06T07:08:09+00:00", FieldValue: "v1" },
    { SubscriberId: 8n, Email: "f@x", ViewTime: "2024-05-06T07:08:09+00:00", FieldValue: null },
  ];

  it("the sample model has exactly the sample's columns", () => {
    expect(sampleModel.columns.map((c) => c.name ?? c.nameFromParam)).toEqual([
      "SubscriberId",
      "Email",
      "ViewTime",
      "ddField",
    ]);
  });

  it("writes the HTTP GET/POST DataSet document byte for byte", () => {
    for (const name of ["httpGet", "httpPost"] as const) {
      const response = binding(name).encodeResponse(op, rows, request);
      expect(response).toEqual({
        status: 200,
        headers: { "content-type": "text/xml; charset=utf-8" },
        body: DATASET_DOCUMENT,
      });
    }
  });

  it("writes the same schema and diffgram directly inside <OpResult> in SOAP", () => {
    const inner = compact(DATASET_DOCUMENT).slice(
      compact(`${XML_DECLARATION}<DataSet xmlns="http://tempuri.org/">`).length,
      -"</DataSet>".length,
    );
    const want =
      `<GetReportViewsByDateIntervalResponse xmlns="http://tempuri.org/"><GetReportViewsByDateIntervalResult>${inner}` +
      "</GetReportViewsByDateIntervalResult></GetReportViewsByDateIntervalResponse>";
    expect(binding("soap11").encodeResponse(op, rows, request).body).toBe(SOAP11_OPEN + want + SOAP_CLOSE);
    expect(binding("soap12").encodeResponse(op, rows, request).body).toBe(SOAP12_OPEN + want + SOAP_CLOSE);
  });

  it("reads the sample with the spec's model: columns from the schema, omitted cells null", () => {
    const response = {
      status: 200,
      headers: { "content-type": "text/xml; charset=utf-8" },
      body: DATASET_DOCUMENT,
    };
    expect(binding("httpGet").decodeResponse(real, response, request)).toEqual({
      dataSetName: "NewDataSet",
      table: "Table",
      columns: DATASET_COLUMNS,
      rows: [
        {
          SubscriberId: 7n,
          Email: "e@x",
          Name: null,
          ViewTime: "2024-05-06T07:08:09+00:00",
          FieldValue: "v1",
        },
        {
          SubscriberId: 8n,
          Email: "f@x",
          Name: null,
          ViewTime: "2024-05-06T07:08:09+00:00",
          FieldValue: null,
        },
      ],
    });
  });
});

// ---- errors, in shape ----------------------------------------------------------------------------

/** The generated server on the fetch adapter; InsertSubscriberSid fails as an operation would. */
const handler = createHandler(
  sampleImplementation([], {
    InsertSubscriberSid: () => {
      throw new ServiceError("InvalidCredentials", "Invalid credentials");
    },
  } satisfies Partial<ExternalAPIService>),
).fetch;

async function send(
  method: "GET" | "POST",
  target: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const response = await handler(
    new Request(`http://example.test${ENDPOINT_PATH}${target}`, { method, headers, body }),
  );
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}

function soapBody(
  name: "soap11" | "soap12",
  op: OperationModel,
  params: ParamValues,
): { headers: Record<string, string>; body: string } {
  const request = encode(name, op, params);
  return { headers: { ...request.headers }, body: request.body };
}

function only(parent: XmlElement | undefined, ns: string, local: string): XmlElement {
  const found = parent?.children.filter((c) => c.ns === ns && c.local === local) ?? [];
  expect(found, `${parent?.local} holds one ${local}`).toHaveLength(1);
  return found[0];
}

/** The Fault element of a response, after checking the envelope around it. */
function fault(envelopeNs: string, body: string): XmlElement {
  expect(body.startsWith(envelopeNs === SOAP11_NS ? SOAP11_OPEN : SOAP12_OPEN)).toBe(true);
  const root = readXml(body);
  expect([root.ns, root.local, root.prefix]).toEqual([envelopeNs, "Envelope", "soap"]);
  const soapBodyEl = only(root, envelopeNs, "Body");
  expect(soapBodyEl.children).toHaveLength(1);
  return only(soapBodyEl, envelopeNs, "Fault");
}

function detailCode(detail: XmlElement): string | undefined {
  return only(detail, NS, "Error").children.find((c) => c.ns === NS && c.local === "Code")?.text;
}

/** SOAP 1.1: faultcode, faultstring, detail, unqualified, in that order. */
function soap11Fault(body: string) {
  const f = fault(SOAP11_NS, body);
  expect(f.children.map((c) => [c.ns, c.local])).toEqual([
    ["", "faultcode"],
    ["", "faultstring"],
    ["", "detail"],
  ]);
  return { code: f.children[0].text, reason: f.children[1].text, errorCode: detailCode(f.children[2]) };
}

/** SOAP 1.2: Code/Value, Reason/Text xml:lang="en", Detail, all in the envelope namespace. */
function soap12Fault(body: string) {
  const f = fault(SOAP12_NS, body);
  expect(f.children.map((c) => [c.ns, c.local])).toEqual([
    [SOAP12_NS, "Code"],
    [SOAP12_NS, "Reason"],
    [SOAP12_NS, "Detail"],
  ]);
  const text = only(f.children[1], SOAP12_NS, "Text");
  expect(text.attrs).toEqual([{ ns: XML_NS, local: "lang", value: "en" }]);
  return {
    code: only(f.children[0], SOAP12_NS, "Value").text,
    reason: text.text,
    errorCode: detailCode(f.children[2]),
  };
}

describe("SOAP faults", () => {
  const sid = operations.InsertSubscriberSid;
  const filters = operations.GetNewsletterFilters;
  type Case = {
    name: string;
    op: OperationModel;
    params: ParamValues;
    edit?: (r: { headers: Record<string, string>; body: string }) => void;
    side: "client" | "server";
    errorCode: string;
    reason?: string;
  };
  const cases: Case[] = [
    {
      name: "the operation failed",
      op: sid,
      params: SOAP11_REQUEST_VALUES,
      side: "server",
      errorCode: "InvalidCredentials",
      reason: "Invalid credentials",
    },
    {
      name: "a value that does not parse as its type",
      op: filters,
      params: { intNewsletterId: 1 },
      edit: (r) => void (r.body = r.body.replace("<intNewsletterId>1<", "<intNewsletterId>x<")),
      side: "client",
      errorCode: "InvalidType",
    },
  ];

  /** What differs between the versions: the content type, the fault's shape and its code for each side. */
  const versions = [
    {
      version: "soap11",
      label: "SOAP 1.1",
      contentType: "text/xml; charset=utf-8",
      read: soap11Fault,
      codes: { client: "soap:Client", server: "soap:Server" },
    },
    {
      version: "soap12",
      label: "SOAP 1.2",
      contentType: "application/soap+xml; charset=utf-8",
      read: soap12Fault,
      codes: { client: "soap:Sender", server: "soap:Receiver" },
    },
  ] as const;

  it.each(versions.flatMap((v) => cases.map((c) => ({ ...v, ...c, code: v.codes[c.side] }))))(
    "$label, $name: 500, $code fault",
    async ({ version, contentType, read, op, params, edit, code, errorCode, reason }) => {
      const r = soapBody(version, op, params);
      edit?.(r);
      const response = await send("POST", "", r.headers, r.body);
      expect(response.status).toBe(500);
      expect(response.contentType).toBe(contentType);
      const got = read(response.body);
      expect(got.code).toBe(code);
      expect(got.errorCode).toBe(errorCode);
      if (reason) expect(got.reason).toBe(reason);
    },
  );

  // Ours (docs/wire.md §2, §3): the failed operation's fault, byte for byte as the page shows it.
  it.each([
    { version: "soap11", label: "SOAP 1.1", want: SOAP11_FAULT_BODY },
    { version: "soap12", label: "SOAP 1.2", want: SOAP12_FAULT_BODY },
  ] as const)(
    "$label, the operation failed: the page's fault sample byte for byte",
    async ({ version, want }) => {
      const r = soapBody(version, sid, SOAP11_REQUEST_VALUES);
      const response = await send("POST", "", r.headers, r.body);
      expect(response.status).toBe(500);
      expect(response.body).toBe(want);
    },
  );

  // §1a: ASMX answers XML it cannot read with 400 and no fault; ours adds one line of text and the code.
  it.each(versions)(
    "$label, XML that is not well-formed: 400, one line of text, no fault",
    async ({ version }) => {
      const r = soapBody(version, filters, { intNewsletterId: 1 });
      const response = await send("POST", "", r.headers, r.body.slice(0, -5));
      expect(response.status).toBe(400);
      expect(response.contentType).toBe("text/plain; charset=utf-8");
      expect(response.body).toMatch(/^System\.InvalidOperationException: [^\n]+$/);
    },
  );

  it("unknown SOAPAction: soap:Client with the .NET wording", async () => {
    const r = soapBody("soap11", filters, { intNewsletterId: 1 });
    const response = await send(
      "POST",
      "",
      { ...r.headers, soapaction: '"http://tempuri.org/Nope"' },
      r.body,
    );
    expect(response.status).toBe(500);
    expect(soap11Fault(response.body)).toEqual({
      code: "soap:Client",
      reason: "Server did not recognize the value of HTTP Header SOAPAction: http://tempuri.org/Nope.",
      errorCode: "UnknownSoapAction",
    });
  });
});

describe("HTTP GET/POST errors: 500 text/plain `<ExceptionType>: <message>`", () => {
  const sidQuery = (omit: string) =>
    new URLSearchParams(Object.entries(SOAP11_REQUEST_VALUES).filter(([k]) => k !== omit)).toString();
  const cases: {
    name: string;
    method: "GET" | "POST";
    target: string;
    form?: string;
    contentType?: string;
    want: string | RegExp;
  }[] = [
    {
      name: "missing parameter (GET)",
      method: "GET",
      target: `/InsertSubscriberSid?${sidQuery("strEmail")}`,
      want: "System.InvalidOperationException: Missing parameter: strEmail.",
    },
    {
      name: "missing parameter (POST)",
      method: "POST",
      target: "/InsertSubscriberSid",
      form: sidQuery("strEmail"),
      want: "System.InvalidOperationException: Missing parameter: strEmail.",
    },
    {
      name: "value that does not convert (GET)",
      method: "GET",
      target: "/GetNewsletterFilters?strUsername=u&strPassword=p&intNewsletterId=x",
      want: /^System\.ArgumentException: Cannot convert .*x.* to System\.Int32\b/,
    },
    {
      name: "value that does not convert (POST)",
      method: "POST",
      target: "/GetNewsletterFilters",
      form: "strUsername=u&strPassword=p&intNewsletterId=x",
      want: /^System\.ArgumentException: Cannot convert .*x.* to System\.Int32\b/,
    },
    {
      name: "unknown operation (GET)",
      method: "GET",
      target: "/NoSuchOp?a=1",
      want: "System.InvalidOperationException: NoSuchOp Web Service method name is not valid.",
    },
    {
      name: "unknown operation (POST)",
      method: "POST",
      target: "/NoSuchOp",
      form: "a=1",
      want: "System.InvalidOperationException: NoSuchOp Web Service method name is not valid.",
    },
    {
      name: "POST with text/plain",
      method: "POST",
      target: "/GetNewsletterFilters",
      form: "strUsername=u",
      contentType: "text/plain",
      want: "System.InvalidOperationException: Request format is invalid: text/plain.",
    },
    {
      name: "the operation failed (GET)",
      method: "GET",
      target: `/InsertSubscriberSid?${sidQuery("")}`,
      want: "System.Exception: Invalid credentials",
    },
    {
      name: "the operation failed (POST)",
      method: "POST",
      target: "/InsertSubscriberSid",
      form: sidQuery(""),
      want: "System.Exception: Invalid credentials",
    },
  ];

  it.each(cases)("$name", async ({ method, target, form, contentType, want }) => {
    const headers: Record<string, string> =
      method === "POST" ? { "content-type": contentType ?? "application/x-www-form-urlencoded" } : {};
    const response = await send(method, target, headers, form);
    expect(response.status).toBe(500);
    expect(response.contentType).toBe("text/plain; charset=utf-8");
    expect(response.body).not.toContain("\n");
    if (typeof want === "string") expect(response.body).toBe(want);
    else expect(response.body).toMatch(want);
  });
});

describe("the page's samples (docs/wire.md)", () => {
  it("reads each marked code block, and refuses a name used twice or a marker without a block", () => {
    const block = (name: string, text: string) => `<!-- sample: ${name} -->\n\`\`\`xml\n${text}\n\`\`\`\n`;
    expect([
      ...readSamples(`# t\n\n${block("a", "<a/>")}\ntext\n\n${block("b", "<b>\n  <c/>\n</b>")}`),
    ]).toEqual([
      ["a", "<a/>"],
      ["b", "<b>\n  <c/>\n</b>"],
    ]);
    expect(() => readSamples(block("a", "<a/>") + block("a", "<b/>"))).toThrow(/"a" appears twice/);
    expect(() => readSamples(`<!-- sample: a -->\ntext\n`)).toThrow(/not followed by a code block/);
  });
});
