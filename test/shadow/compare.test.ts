// The shadow proxy's comparison of a legacy host's answer with ours: canonical XML (prefixes, attribute
// order, whitespace, a DataSet schema's host-specific attributes), volatile paths, status, content type,
// fault codes, error texts, and the documented deliberate differences.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  compareAnswers,
  contentTypeKey,
  type Answer,
  type CompareRules,
} from "../../generator/shadow/compare.js";
import { parseVolatilePath, type VolatilePath } from "../../generator/shadow/paths.js";
import { sample } from "../fixtures/wire-samples.js";

const XML = "text/xml; charset=utf-8";
const SOAP12 = "application/soap+xml; charset=utf-8";

function answer(body: string, contentType = XML, status = 200, headers: Record<string, string> = {}): Answer {
  return { status, headers: { "content-type": contentType, ...headers }, body: Buffer.from(body, "utf8") };
}

function rules(...paths: string[]): CompareRules {
  return {
    volatile: paths.map((p) => {
      const parsed = parseVolatilePath(p);
      if (typeof parsed === "string") throw new Error(parsed);
      return parsed as VolatilePath;
    }),
    secrets: new Set(["strPassword", "Token"]),
  };
}

/** A golden response body of ours (test/wire/golden), as our server writes it. */
function golden(binding: string, operation: string): string {
  const text = readFileSync(
    new URL(`../wire/golden/${binding}/${operation}.response.http`, import.meta.url),
    "utf8",
  );
  return text.slice(text.indexOf("\n\n") + 2);
}

const DATASET = sample("dataset-document");

describe("canonical XML", () => {
  it("matches an answer with itself, for every golden answer of every binding", () => {
    for (const binding of ["soap11", "soap12", "httpGet", "httpPost"]) {
      for (const op of [
        "GetSubscriberMailingLists",
        "GetTriggerClicks",
        "GetRoiResults",
        "GetNewsletterFilters",
      ]) {
        const body = golden(binding, op);
        const type = binding === "soap12" ? SOAP12 : XML;
        expect(compareAnswers(answer(body, type), answer(body, type), rules()), `${binding} ${op}`).toEqual({
          outcome: "matched",
        });
      }
    }
  });

  it("ignores namespace prefixes, declarations, attribute order and indentation", () => {
    const ours = golden("soap11", "GetTriggerClicks");
    const legacy = ours
      .replace(/soap:/g, "s:")
      .replace("xmlns:soap=", "xmlns:s=")
      .replace(
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"',
        "",
      )
      .replace(/></g, ">\n  <");
    expect(legacy).not.toBe(ours);
    expect(compareAnswers(answer(legacy), answer(ours), rules()).outcome).toBe("matched");
  });

  it("takes a DataSet schema by its tables and columns: msdata attributes, ids and annotations may differ", () => {
    const legacy = DATASET.replace(' msdata:UseCurrentLocale="true"', "")
      .replace('id="NewDataSet"', 'id="Other"')
      .replace("xmlns:xs=", "xmlns:xsd2=")
      .replace(/xs:/g, "xsd2:")
      .replace(
        "<xsd2:complexType>",
        "<xsd2:annotation><xsd2:documentation>x</xsd2:documentation></xsd2:annotation><xsd2:complexType>",
      );
    expect(compareAnswers(answer(legacy), answer(DATASET), rules()).outcome).toBe("matched");
    // A column's type is meaning, and so is its order.
    const retyped = DATASET.replace(
      'name="SubscriberId" type="xs:long"',
      'name="SubscriberId" type="xs:int"',
    );
    expect(compareAnswers(answer(retyped), answer(DATASET), rules())).toMatchObject({
      outcome: "diverged",
      path: "schema/element/complexType/choice/element/complexType/sequence/element[1]",
      what: "attribute type differs",
      legacy: "{http://www.w3.org/2001/XMLSchema}int",
      ours: "{http://www.w3.org/2001/XMLSchema}long",
    });
  });

  it("names the first differing path from the result, the same on SOAP and HTTP", () => {
    const get = golden("httpGet", "GetTriggerClicks");
    const changedGet = get.replace("<Email>b@example.test</Email>", "<Email>c@example.test</Email>");
    const soap = golden("soap11", "GetTriggerClicks");
    const changedSoap = soap.replace("<Email>b@example.test</Email>", "<Email>c@example.test</Email>");
    const expected = {
      outcome: "diverged",
      path: "TriggerSubscriberClicksResult[2]/Email",
      what: "the text differs",
      legacy: "c@example.test",
      ours: "b@example.test",
    };
    expect(compareAnswers(answer(changedGet), answer(get), rules())).toEqual(expected);
    expect(compareAnswers(answer(changedSoap), answer(soap), rules())).toEqual(expected);
  });

  it("names a missing element and a missing row", () => {
    const ours = DATASET;
    const legacy = ours.replace("<DD3>v1</DD3>", "");
    expect(compareAnswers(answer(legacy), answer(ours), rules())).toMatchObject({
      outcome: "diverged",
      path: "diffgram/NewDataSet/Table[1]/DD3",
      legacy: "(none)",
      ours: "DD3",
    });
  });

  it("skips volatile paths: a field, a wildcard, a whole result", () => {
    const ours = golden("httpGet", "GetTriggerClicks");
    const legacy = ours
      .replace("2024-05-06T07:08:09.123Z", "2025-01-01T00:00:00Z")
      .replace("2024-05-06T07:08:09<", "2025-01-01T00:00:00<");
    expect(compareAnswers(answer(legacy), answer(ours), rules()).path).toBe(
      "TriggerSubscriberClicksResult[1]/ClickTime",
    );
    expect(
      compareAnswers(answer(legacy), answer(ours), rules("TriggerSubscriberClicksResult/ClickTime")).outcome,
    ).toBe("matched");
    expect(compareAnswers(answer(legacy), answer(ours), rules("**/ClickTime")).outcome).toBe("matched");
    expect(
      compareAnswers(answer(legacy), answer(ours), rules("TriggerSubscriberClicksResult[1]/ClickTime")).path,
    ).toBe("TriggerSubscriberClicksResult[2]/ClickTime");
    const long = sample("long-document");
    expect(compareAnswers(answer(long.replace("1234567890123", "7")), answer(long), rules(".")).outcome).toBe(
      "matched",
    );
    expect(compareAnswers(answer(long.replace("1234567890123", "7")), answer(long), rules()).path).toBe(".");
  });

  it("does not show a secret element's values", () => {
    const a = '<?xml version="1.0"?><R xmlns="http://tempuri.org/"><Token>abc</Token></R>';
    const b = '<?xml version="1.0"?><R xmlns="http://tempuri.org/"><Token>def</Token></R>';
    expect(compareAnswers(answer(a), answer(b), rules())).toMatchObject({
      path: "Token",
      legacy: "[redacted]",
      ours: "[redacted]",
    });
  });

  it("compares text exactly inside leaves, and the element names by namespace", () => {
    const long = sample("long-document");
    expect(
      compareAnswers(answer(long.replace(">1234567890123<", "> 1234567890123<")), answer(long), rules())
        .outcome,
    ).toBe("diverged");
    const otherNs = long.replace("http://tempuri.org/", "http://example.org/");
    expect(compareAnswers(answer(otherNs), answer(long), rules())).toMatchObject({
      path: ".",
      what: "the element differs",
    });
  });
});

describe("status, content type, faults and error texts", () => {
  it("compares the status first, then the media type and charset", () => {
    const body = sample("long-document");
    expect(compareAnswers(answer(body, XML, 500), answer(body), rules())).toMatchObject({
      path: "status",
      legacy: "500",
      ours: "200",
    });
    expect(compareAnswers(answer(body, "text/xml"), answer(body), rules())).toMatchObject({
      path: "content-type",
    });
    expect(compareAnswers(answer(body, 'TEXT/XML; Charset="utf-8"'), answer(body), rules()).outcome).toBe(
      "matched",
    );
    expect(contentTypeKey('application/soap+xml; action="x"; charset=UTF-8')).toBe(
      "application/soap+xml; charset=utf-8",
    );
  });

  it("compares faults by code, not wording or detail", () => {
    const ours = sample("soap11-fault");
    const asmx = ours
      .replace(
        '<detail><Error xmlns="http://tempuri.org/"><Code>InvalidCredentials</Code></Error></detail>',
        "<detail />",
      )
      .replace(
        "Invalid credentials",
        "System.Web.Services.Protocols.SoapException: Invalid credentials\n   at Stack.Trace()",
      );
    expect(compareAnswers(answer(asmx, XML, 500), answer(ours, XML, 500), rules()).outcome).toBe("matched");
    const client = asmx.replace("soap:Server", "soap:Client");
    expect(compareAnswers(answer(client, XML, 500), answer(ours, XML, 500), rules())).toMatchObject({
      outcome: "diverged",
      path: "fault-code",
      legacy: "Client",
      ours: "Server",
    });
    const ours12 = sample("soap12-fault");
    const sender = ours12.replace("soap:Receiver", "soap:Sender");
    expect(compareAnswers(answer(sender, SOAP12, 500), answer(ours12, SOAP12, 500), rules())).toMatchObject({
      path: "fault-code",
    });
    // A fault against a result: different kinds of answer.
    expect(
      compareAnswers(answer(ours, XML, 500), answer(golden("soap11", "GetRoiResults"), XML, 500), rules()),
    ).toMatchObject({
      path: "body",
      what: "the answers are of different kinds",
    });
  });

  it("compares an HTTP error text by its exception type; a message alone (customErrors On) by status", () => {
    const text = "text/plain; charset=utf-8";
    const ours = "System.Exception: Invalid credentials";
    expect(
      compareAnswers(
        answer("System.Exception: Bad login\n   at X.Y()", text, 500),
        answer(ours, text, 500),
        rules(),
      ).outcome,
    ).toBe("matched");
    expect(
      compareAnswers(
        answer("System.ArgumentException: Cannot convert x", text, 500),
        answer(ours, text, 500),
        rules(),
      ),
    ).toMatchObject({
      path: "exception",
      legacy: "System.ArgumentException",
      ours: "System.Exception",
    });
    expect(
      compareAnswers(answer("Invalid credentials", text, 500), answer(ours, text, 500), rules()).outcome,
    ).toBe("matched");
  });

  it("matches answers of the same status, media type and bytes, whatever the bytes are", () => {
    // The proxy's shortcut (no reading when the bytes agree) must give what reading them gives.
    const notUtf8 = Buffer.from([0x3c, 0xff, 0xfe, 0x3e]);
    const raw = (body: Buffer, status = 200, type = XML): Answer => ({
      status,
      headers: { "content-type": type },
      body,
    });
    expect(compareAnswers(raw(notUtf8), raw(Buffer.from(notUtf8)), rules())).toEqual({ outcome: "matched" });
    const fault = golden("soap11", "GetRoiResults").replace("<soap:Body>", "<soap:Body> ");
    expect(compareAnswers(answer(fault, XML, 500), answer(fault, XML, 500), rules()).outcome).toBe("matched");
    // Same bytes, yet a different status or media type: still told apart, as before.
    expect(compareAnswers(answer(fault, XML, 500), answer(fault), rules())).toMatchObject({ path: "status" });
    expect(compareAnswers(answer(fault, SOAP12), answer(fault), rules())).toMatchObject({
      path: "content-type",
    });
    // A 400 is a 400 whatever its media type, as when the bytes differ.
    expect(compareAnswers(raw(notUtf8, 400, "text/plain"), raw(notUtf8, 400), rules()).outcome).toBe(
      "matched",
    );
  });

  it("takes two 400s as the same (ASMX sends no body, we one line)", () => {
    expect(
      compareAnswers(answer("", "text/html", 400), answer("Not well-formed", "text/plain", 400), rules())
        .outcome,
    ).toBe("matched");
  });

  it("compares non-XML bodies as text and bytes", () => {
    expect(compareAnswers(answer("abc", "text/plain"), answer("abd", "text/plain"), rules())).toMatchObject({
      path: "body",
      what: "the text differs",
    });
    const bytes = (b: number[]): Answer => ({
      status: 200,
      headers: { "content-type": "application/octet-stream" },
      body: Uint8Array.from(b),
    });
    expect(compareAnswers(bytes([0xff, 0xfe]), bytes([0xff, 0xfe]), rules()).outcome).toBe("matched");
    expect(compareAnswers(bytes([0xff, 0xfe]), bytes([0xff, 0xfd]), rules()).path).toBe("body");
  });
});

describe("the documented deliberate differences are explained, not diverged", () => {
  it("our validation refusing what ASMX ran", () => {
    const ours = sample("soap11-fault")
      .replace("soap:Server", "soap:Client")
      .replace("InvalidCredentials", "RequiredParameter");
    const verdict = compareAnswers(
      answer(golden("soap11", "GetRoiResults")),
      answer(ours, XML, 500),
      rules(),
    );
    expect(verdict).toMatchObject({
      outcome: "explained",
      path: "status",
      known: { id: "validation:RequiredParameter" },
    });
  });

  it("PUT on an operation's path: 500 there, 405 here", () => {
    const verdict = compareAnswers(
      answer("<html>error</html>", "text/html; charset=utf-8", 500),
      answer("Method not allowed", "text/plain; charset=utf-8", 405, { "x-error-code": "MethodNotAllowed" }),
      rules(),
    );
    expect(verdict).toMatchObject({ outcome: "explained", known: { id: "MethodNotAllowed" } });
  });

  it("ASP.NET request validation against markup taken as text", () => {
    const verdict = compareAnswers(
      answer(
        "System.Web.HttpRequestValidationException: A potentially dangerous Request.QueryString value was detected",
        "text/html",
        500,
      ),
      answer(sample("long-document")),
      rules(),
    );
    expect(verdict).toMatchObject({ outcome: "explained", known: { id: "request-validation" } });
  });

  it("a server fault on both sides with different codes is not explained by our code alone", () => {
    const ours = sample("soap11-fault");
    const legacy = ours.replace("soap:Server", "soap:Client");
    expect(compareAnswers(answer(legacy, XML, 500), answer(ours, XML, 500), rules()).outcome).toBe(
      "diverged",
    );
  });
});

describe("hostile answers stay bounded", () => {
  it("reads deep or wide XML as text rather than failing", () => {
    const deep = `<?xml version="1.0"?>${"<a>".repeat(10_000)}${"</a>".repeat(10_000)}`;
    expect(compareAnswers(answer(deep), answer(deep), rules()).outcome).toBe("matched");
    expect(compareAnswers(answer(deep), answer(`${deep} `), rules())).toMatchObject({ path: "body" });
    const wide = `<r>${"<a/>".repeat(200_000)}</r>`;
    expect(
      compareAnswers(answer(wide), answer(wide.replace(/<a\/><\/r>$/, "<b/></r>")), rules()),
    ).toMatchObject({
      path: "a[200000]",
    });
  });

  it("shortens long values in the verdict", () => {
    const long = sample("long-document");
    const big = long.replace("1234567890123", "x".repeat(5000));
    const verdict = compareAnswers(answer(big), answer(long), rules());
    expect(verdict.legacy!.length).toBeLessThan(300);
  });
});
