// The server's SOAP decode path against what other stacks send (Java, Python, PHP, hand-written XML):
// it reads by namespace URI and local name, never by prefix or layout; and it refuses, with the right
// error code and fault side, what it must not read.

import { describe, expect, it } from "vitest";
// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../../generated/server-model.js";
import { bindingFactories } from "../fixtures/bindings.js";
import { ServiceError } from "../../generated/runtime/errors.js";
import type { ParamModel } from "../../generated/runtime/model.js";
import { readParams, type ParamValues } from "../../generated/runtime/codec/params.js";
import { readXml } from "../../generated/runtime/xml/scan.js";

const NS = "http://tempuri.org/";
const ENVELOPE = {
  soap11: "http://schemas.xmlsoap.org/soap/envelope/",
  soap12: "http://www.w3.org/2003/05/soap-envelope",
} as const;
type SoapName = keyof typeof ENVELOPE;

const bindings = {
  soap11: bindingFactories.soap11(service, { readXml }),
  soap12: bindingFactories.soap12(service, { readXml }),
};

/** Transport headers naming `op` the way each version does (SOAPAction / action parameter). */
function headersFor(
  name: SoapName,
  op: string,
  options: { action?: string; contentType?: string } = {},
): Record<string, string> {
  const action = options.action ?? `"${NS}${op}"`;
  return name === "soap11"
    ? { "content-type": options.contentType ?? "text/xml; charset=utf-8", soapaction: action }
    : { "content-type": options.contentType ?? `application/soap+xml; charset=utf-8; action=${action}` };
}

function decode(
  name: SoapName,
  body: string,
  headers: Record<string, string>,
): { op: string; values: ParamValues } {
  const binding = bindings[name];
  const decoded = binding.decodeRequest({ method: "POST", path: "", query: "", headers, body });
  return { op: decoded.op.name, values: readParams(decoded.op, decoded.texts, binding.presence) };
}

/** The ServiceError a request is refused with. */
function refusal(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error("expected the request to be refused");
}

const SID_PARAMS = [
  ["strUsername", "u"],
  ["strPassword", "p"],
  ["strEmail", "a@b"],
  ["strName", "N"],
  ["strFormat", "HTML"],
  ["strCountryCode", "46"],
  ["strPhoneNumber", "123"],
  ["strMailingListID", "1"],
] as const;
const SID_VALUES = Object.fromEntries(SID_PARAMS);

/** InsertSubscriberSid's parameters as elements, `tag` choosing how each name is written. */
function sidChildren(tag: (name: string) => string = (n) => n, sep = ""): string {
  return SID_PARAMS.map(([n, v]) => `${sep}<${tag(n)}>${v}</${tag(n)}>`).join("");
}

describe.each(["soap11", "soap12"] as const)("%s decode accepts other stacks' shapes", (name) => {
  const env = ENVELOPE[name];
  const headers = headersFor(name, "InsertSubscriberSid");
  const want = { op: "InsertSubscriberSid", values: SID_VALUES };

  it.each([
    { shape: "soapenv: prefix (Java, zeep)", prefix: "soapenv" },
    { shape: "SOAP-ENV: prefix (PHP, gSOAP)", prefix: "SOAP-ENV" },
    { shape: "s: prefix (WCF)", prefix: "s" },
    { shape: "env: prefix", prefix: "env" },
  ])("envelope with $shape", ({ prefix }) => {
    const body =
      `<${prefix}:Envelope xmlns:${prefix}="${env}"><${prefix}:Body>` +
      `<InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid></${prefix}:Body></${prefix}:Envelope>`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it("envelope in the default namespace, operation element re-declaring it", () => {
    const body = `<Envelope xmlns="${env}"><Body><InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid></Body></Envelope>`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it.each(["ns0", "tns"])("prefixed operation element %s: with qualified (prefixed) children", (p) => {
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}" xmlns:${p}="${NS}"><soapenv:Body>` +
      `<${p}:InsertSubscriberSid>${sidChildren((n) => `${p}:${n}`)}</${p}:InsertSubscriberSid></soapenv:Body></soapenv:Envelope>`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it("prefixed operation element with a default namespace for its children", () => {
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}"><soapenv:Body>` +
      `<tns:InsertSubscriberSid xmlns:tns="${NS}" xmlns="${NS}">${sidChildren()}</tns:InsertSubscriberSid></soapenv:Body></soapenv:Envelope>`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it("unqualified children of a prefixed operation element are not its parameters (elementFormDefault=qualified)", () => {
    // .NET ignores such elements too; we then name the first required parameter that is missing.
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}"><soapenv:Body>` +
      `<tns:InsertSubscriberSid xmlns:tns="${NS}">${sidChildren()}</tns:InsertSubscriberSid></soapenv:Body></soapenv:Envelope>`;
    const error = refusal(() => decode(name, body, headers));
    expect([error.code, error.side, error.parameter]).toEqual(["RequiredParameter", "client", "strUsername"]);
  });

  it("indentation, CRLF line ends, comments, no XML declaration", () => {
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}">\r\n  <!-- sent by a test -->\r\n  <soapenv:Body>\r\n` +
      `    <InsertSubscriberSid xmlns="${NS}">${sidChildren((n) => n, "\r\n      ")}\r\n    </InsertSubscriberSid>\r\n` +
      `  </soapenv:Body>\r\n</soapenv:Envelope>\r\n`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it("a SOAP Header before the Body", () => {
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}"><soapenv:Header><wsa:To xmlns:wsa="http://www.w3.org/2005/08/addressing">x</wsa:To>` +
      `</soapenv:Header><soapenv:Body><InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid></soapenv:Body></soapenv:Envelope>`;
    expect(decode(name, body, headers)).toEqual(want);
  });

  it("parameters in another order, unknown elements ignored, CDATA and character references read", () => {
    const body =
      `<soapenv:Envelope xmlns:soapenv="${env}"><soapenv:Body><InsertSubscriberSid xmlns="${NS}">` +
      `${[...SID_PARAMS]
        .reverse()
        .map(([n, v]) => `<${n}>${v}</${n}>`)
        .join("")}<extra>1</extra>` +
      `<strName><![CDATA[A&<B>]]></strName>` +
      `</InsertSubscriberSid></soapenv:Body></soapenv:Envelope>`;
    // The first occurrence of a parameter wins; the later strName is ignored like any duplicate.
    expect(decode(name, body, headers)).toEqual(want);
    const cdata = body.replace("<strName>N</strName>", "<strName><![CDATA[A&<B>]]>&#x00C5;</strName>");
    expect(decode(name, cdata, headers).values.strName).toBe("A&<B>Å");
  });

  it("omitted optional parameters: absent, and their defaults applied", () => {
    const body =
      `<s:Envelope xmlns:s="${env}"><s:Body><InsertTransactionWithSplit xmlns="${NS}">` +
      "<strUsername>u</strUsername><strPassword>p</strPassword><strId>p1</strId><strEmail>a@b</strEmail>" +
      "<strDataFields>DD1</strDataFields><strDataValues>x</strDataValues></InsertTransactionWithSplit></s:Body></s:Envelope>";
    const got = decode(name, body, headersFor(name, "InsertTransactionWithSplit"));
    const sent: ParamValues = {
      strUsername: "u",
      strPassword: "p",
      strId: "p1",
      strEmail: "a@b",
      strDataFields: "DD1",
      strDataValues: "x",
    };
    const params: readonly ParamModel[] = operations.InsertTransactionWithSplit.params;
    const want: ParamValues = {};
    for (const p of params) want[p.name] = sent[p.name] ?? p.default;
    expect(
      params.some((p) => sent[p.name] === undefined && p.default !== undefined),
      "the case covers a default",
    ).toBe(true);
    expect(got).toEqual({ op: "InsertTransactionWithSplit", values: want });
  });

  it("xsi:nil on an optional string reads as absent", () => {
    const body =
      `<s:Envelope xmlns:s="${env}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Body><InsertSubscriberSid xmlns="${NS}">` +
      sidChildren().replace("<strName>N</strName>", '<strName xsi:nil="true" />') +
      "</InsertSubscriberSid></s:Body></s:Envelope>";
    const { strName: _, ...rest } = SID_VALUES;
    expect(decode(name, body, headers).values).toEqual({ ...rest, strName: undefined });
  });

  it("xsi:nil on a value type is a missing parameter", () => {
    const body =
      `<s:Envelope xmlns:s="${env}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><s:Body><GetNewsletterFilters xmlns="${NS}">` +
      '<strUsername>u</strUsername><strPassword>p</strPassword><intNewsletterId i:nil="true" /></GetNewsletterFilters></s:Body></s:Envelope>';
    const error = refusal(() => decode(name, body, headersFor(name, "GetNewsletterFilters")));
    expect([error.code, error.side, error.parameter]).toEqual([
      "MissingParameter",
      "client",
      "intNewsletterId",
    ]);
  });
});

describe("transport naming of the operation", () => {
  const body = (env: string) =>
    `<s:Envelope xmlns:s="${env}"><s:Body><InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid></s:Body></s:Envelope>`;

  it.each([
    '"http://tempuri.org/InsertSubscriberSid"',
    "http://tempuri.org/InsertSubscriberSid",
    ' "http://tempuri.org/InsertSubscriberSid" ',
  ])("SOAP 1.1 SOAPAction %s", (action) => {
    expect(
      decode("soap11", body(ENVELOPE.soap11), headersFor("soap11", "InsertSubscriberSid", { action })).op,
    ).toBe("InsertSubscriberSid");
  });

  it.each([
    "application/soap+xml",
    "application/soap+xml; charset=utf-8",
    'application/soap+xml;charset=utf-8;action="http://tempuri.org/InsertSubscriberSid"',
    "application/soap+xml; action=http://tempuri.org/InsertSubscriberSid; charset=utf-8",
  ])("SOAP 1.2 content type %s", (contentType) => {
    expect(decode("soap12", body(ENVELOPE.soap12), { "content-type": contentType }).op).toBe(
      "InsertSubscriberSid",
    );
  });

  it("SOAP 1.1 with no SOAPAction header at all: the Body element names the operation (docs/wire.md §1a)", () => {
    expect(decode("soap11", body(ENVELOPE.soap11), { "content-type": "text/xml; charset=utf-8" }).op).toBe(
      "InsertSubscriberSid",
    );
  });
});

describe("decode refuses, with the right error code", () => {
  const sidBody = (
    env: string,
    inner = `<InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid>`,
  ) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
  const deep = (levels: number) => `${"<a>".repeat(levels)}x${"</a>".repeat(levels)}`;
  const billionLaughs =
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>' +
    `<soap:Envelope xmlns:soap="${ENVELOPE.soap11}"><soap:Body><InsertSubscriberSid xmlns="${NS}"><strUsername>&lol3;</strUsername></InsertSubscriberSid></soap:Body></soap:Envelope>`;

  type Case = {
    name: string;
    binding: SoapName;
    body: string;
    headers?: Record<string, string>;
    code: string;
  };
  const cases: Case[] = [
    {
      name: "a DOCTYPE",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11).replace("?>", '?><!DOCTYPE soap:Envelope SYSTEM "file:///etc/passwd">'),
      code: "DoctypeRefused",
    },
    {
      name: "billion laughs (entity declarations)",
      binding: "soap11",
      body: billionLaughs,
      code: "DoctypeRefused",
    },
    {
      name: "a DOCTYPE in SOAP 1.2",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12).replace("?>", "?><!DOCTYPE x []>"),
      code: "DoctypeRefused",
    },
    {
      name: "nesting deeper than the limit inside a parameter",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11).replace("<strName>N</strName>", `<strName>${deep(40)}</strName>`),
      code: "TooDeep",
    },
    {
      name: "deep nesting in SOAP 1.2",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12, deep(100)),
      code: "TooDeep",
    },
    {
      name: "malformed XML",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11).replace("</strEmail>", "</strEmai>"),
      code: "MalformedXml",
    },
    {
      name: "an unbound prefix",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11, "<tns:InsertSubscriberSid />"),
      code: "MalformedXml",
    },
    {
      name: "not an envelope",
      binding: "soap11",
      body: `<InsertSubscriberSid xmlns="${NS}">${sidChildren()}</InsertSubscriberSid>`,
      code: "InvalidEnvelope",
    },
    {
      name: "a SOAP 1.2 envelope sent as text/xml",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap12),
      code: "InvalidEnvelope",
    },
    {
      name: "a SOAP 1.1 envelope sent as application/soap+xml",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap11),
      code: "InvalidEnvelope",
    },
    {
      name: "an Envelope without Body",
      binding: "soap11",
      body: `<soap:Envelope xmlns:soap="${ENVELOPE.soap11}"><soap:Header /></soap:Envelope>`,
      code: "InvalidEnvelope",
    },
    { name: "an empty Body", binding: "soap11", body: sidBody(ENVELOPE.soap11, ""), code: "InvalidEnvelope" },
    {
      name: "an empty Body in SOAP 1.2",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12, "\n  "),
      code: "InvalidEnvelope",
    },
    {
      name: "the operation element in another namespace",
      binding: "soap11",
      body: sidBody(
        ENVELOPE.soap11,
        `<InsertSubscriberSid xmlns="http://example.org/">${sidChildren()}</InsertSubscriberSid>`,
      ),
      code: "UnknownOperation",
    },
    {
      name: "the operation element in no namespace (SOAP 1.2, no action)",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12, `<InsertSubscriberSid>${sidChildren()}</InsertSubscriberSid>`),
      headers: { "content-type": "application/soap+xml; charset=utf-8" },
      code: "UnknownOperation",
    },
    {
      name: "an unknown Body element",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12, `<Nope xmlns="${NS}" />`),
      headers: { "content-type": "application/soap+xml" },
      code: "UnknownOperation",
    },
    {
      name: "an unknown SOAPAction",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11),
      headers: headersFor("soap11", "", { action: '"http://tempuri.org/Nope"' }),
      code: "UnknownSoapAction",
    },
    {
      name: "a SOAPAction in another namespace",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11),
      headers: headersFor("soap11", "", { action: '"http://example.org/InsertSubscriberSid"' }),
      code: "UnknownSoapAction",
    },
    {
      name: "an empty SOAPAction",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11),
      headers: headersFor("soap11", "", { action: '""' }),
      code: "UnknownSoapAction",
    },
    {
      name: "an unknown SOAP 1.2 action",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12),
      headers: headersFor("soap12", "", { action: '"http://tempuri.org/Nope"' }),
      code: "UnknownSoapAction",
    },
    {
      name: "SOAPAction and Body disagree",
      binding: "soap11",
      body: sidBody(ENVELOPE.soap11),
      headers: headersFor("soap11", "GetNewsletterFilters"),
      code: "SoapActionMismatch",
    },
    {
      name: "SOAP 1.2 action and Body disagree",
      binding: "soap12",
      body: sidBody(ENVELOPE.soap12),
      headers: headersFor("soap12", "GetNewsletterFilters"),
      code: "SoapActionMismatch",
    },
  ];

  /** XML the reader refuses is refused at the HTTP level, 400 (docs/wire.md §1a); the rest are faults. */
  const HTTP_LEVEL = new Set(["DoctypeRefused", "TooDeep", "MalformedXml"]);

  it.each(cases)("$binding: $name -> $code", ({ binding, body, headers, code }) => {
    const error = refusal(() => decode(binding, body, headers ?? headersFor(binding, "InsertSubscriberSid")));
    expect(error.code).toBe(code);
    expect(error.side).toBe("client");
    expect(error.status).toBe(HTTP_LEVEL.has(code) ? 400 : 500);
    // One sentence for the wire: no stack, and nothing of the refused input beyond a short name.
    expect(error.message).not.toMatch(/\n|\bat .*:\d+|etc\/passwd|lol;/);
  });

  it("the fault a refusal becomes is soap:Client / soap:Sender with the code in the detail", () => {
    const error = refusal(() => decode("soap11", sidBody(ENVELOPE.soap11), headersFor("soap11", "Nope")));
    for (const name of ["soap11", "soap12"] as const) {
      const response = bindings[name].encodeError(error);
      expect(response.status).toBe(500);
      const fault = readXml(response.body).children[0].children[0];
      expect(fault.local).toBe("Fault");
      expect(response.body).toContain(
        name === "soap11" ? "<faultcode>soap:Client</faultcode>" : "<soap:Value>soap:Sender</soap:Value>",
      );
      expect(response.body).toContain(`<Error xmlns="${NS}"><Code>UnknownSoapAction</Code></Error>`);
    }
  });

  it("a DOCTYPE becomes 400 with one line of text and the code, no fault envelope (docs/wire.md §1a)", () => {
    const error = refusal(() =>
      decode(
        "soap11",
        sidBody(ENVELOPE.soap11).replace("?>", "?><!DOCTYPE x []>"),
        headersFor("soap11", "InsertSubscriberSid"),
      ),
    );
    for (const name of ["soap11", "soap12"] as const) {
      const response = bindings[name].encodeError(error);
      expect(response.status).toBe(400);
      expect(response.headers).toEqual({
        "content-type": "text/plain; charset=utf-8",
        "x-content-type-options": "nosniff",
        "x-error-code": "DoctypeRefused",
      });
      expect(response.body).toMatch(/^System\.InvalidOperationException: [^\n<]+$/);
    }
  });

  it.each([
    ["soap11", "an empty body", ""],
    ["soap11", "only whitespace", " \r\n\t"],
    ["soap12", "an empty body with the operation's action", ""],
  ] as const)('%s: %s is refused with 400, "Root element is missing."', (binding, _what, body) => {
    const error = refusal(() => decode(binding, body, headersFor(binding, "InsertSubscriberSid")));
    expect([error.status, error.side, error.code, error.message]).toEqual([
      400,
      "client",
      "MalformedXml",
      "Root element is missing.",
    ]);
  });

  it('soap12: an empty body without an action is a Receiver fault, 500, "Root element is missing." (docs/wire.md §1a)', () => {
    const error = refusal(() =>
      decode("soap12", "", { "content-type": "application/soap+xml; charset=utf-8" }),
    );
    expect([error.status, error.side, error.code, error.message]).toEqual([
      500,
      "server",
      "MalformedXml",
      "Root element is missing.",
    ]);
    const response = bindings.soap12.encodeError(error);
    expect(response.status).toBe(500);
    expect(response.body).toContain("<soap:Value>soap:Receiver</soap:Value>");
    expect(response.body).toContain("Root element is missing.");
  });

  it.each([
    [
      "an unknown SOAPAction",
      "soap11",
      sidBody(ENVELOPE.soap11),
      headersFor("soap11", "", { action: `"${"A".repeat(1_000_000)}"` }),
    ],
    [
      "an unknown Body element name",
      "soap12",
      sidBody(ENVELOPE.soap12, `<${"B".repeat(1_000_000)} xmlns="${NS}" />`),
      { "content-type": "application/soap+xml" },
    ],
  ] as const)("echoes at most 40 characters of %s", (_what, binding, body, headers) => {
    const error = refusal(() => decode(binding, body, headers));
    expect(error.message.length).toBeLessThan(200);
    expect(error.message).toMatch(/(A|B){40}\.\.\./);
  });
});
