// Protocol edges a mutating fuzzer seldom builds whole, each a class of request the server once answered
// wrongly: a body of two UTF-8 byte order marks (once 200: the XML was not well-formed) and SOAP headers
// marked mustUnderstand that no operation understands (once 200: the call ran and a client's security header
// was dropped). Each is applied to every SOAP request a .NET client sends (every operation x 2 SOAP bindings,
// plus the wire page's two SOAP samples) and sent through the node:http handler, the fetch adapter and a
// Connect-style middleware chain (faults.ts's listener); every answer must be exactly the expected one.

import { exchangeOnce, type Answer } from "./connection.js";
import { judgeAnswer } from "./judge.js";
import { baseRequests, cloneRequest, ENDPOINT, serialize, type RawRequest } from "./requests.js";
import { readXml } from "../../generated/runtime/xml/scan.js";

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface ProtocolClass {
  readonly name: string;
  /** What every answer must be, in words (the row's target). */
  readonly expected: string;
  /** The request bent into the class; the i-th request takes the i-th variant. */
  bend(request: RawRequest, i: number): RawRequest;
  /** Undefined when the answer is the expected one, else why not. */
  check(answer: Answer): string | undefined;
}

/** The envelope's prefix for its namespace in a request body (`soap`, `soap12`, `s`, ...). */
function envelopePrefix(body: string): { prefix: string; ns: string } {
  const m = /<([A-Za-z_][\w.-]*):Envelope\b[^>]*\sxmlns:\1="([^"]*)"/.exec(body);
  if (!m) throw new Error(`no prefixed Envelope in ${body.slice(0, 120)}`);
  return { prefix: m[1]!, ns: m[2]! };
}

/** The request with `header` (markup using `{p}` for the envelope's prefix) as its SOAP Header. */
function withHeader(request: RawRequest, header: string): RawRequest {
  const body = request.body.toString("utf8");
  const { prefix } = envelopePrefix(body);
  const at = body.indexOf(`<${prefix}:Body`);
  const out = cloneRequest(request);
  out.body = Buffer.from(
    `${body.slice(0, at)}<${prefix}:Header>${header.replaceAll("{p}", prefix)}</${prefix}:Header>${body.slice(at)}`,
  );
  return out;
}

/** The fault code (`soap:MustUnderstand` → MustUnderstand) and whether a detail element is there. */
function faultOf(answer: Answer): { code: string; detail: boolean } | undefined {
  try {
    const root = readXml(answer.body.toString("utf8"), { maxDepth: 64 });
    const fault = root.children.find((c) => c.local === "Body")?.children[0];
    if (fault?.local !== "Fault") return undefined;
    const code =
      root.ns === SOAP11
        ? fault.children.find((c) => c.local === "faultcode")?.text
        : fault.children.find((c) => c.local === "Code")?.children.find((c) => c.local === "Value")?.text;
    return {
      code: (code ?? "").replace(/^[^:]*:/, ""),
      detail: fault.children.some((c) => c.local === "detail" || c.local === "Detail"),
    };
  } catch {
    return undefined;
  }
}

function answered(answer: Answer): string | undefined {
  return answer.status === 200 ? undefined : `status ${answer.status}, want 200`;
}

/** Header variants marked mustUnderstand as ASMX counts it: "1"/"true", either envelope namespace, any actor or role. */
const MARKED = [
  '<w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="1"><w:Token>t</w:Token></w:Security>',
  '<w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="true"/>',
  `<w:Security xmlns:w="urn:example:wsse" xmlns:e11="${SOAP11}" e11:mustUnderstand="1"/>`,
  `<w:Security xmlns:w="urn:example:wsse" xmlns:e12="${SOAP12}" e12:mustUnderstand="1"/>`,
  '<w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="1" {p}:actor="http://schemas.xmlsoap.org/soap/actor/next"/>',
  `<w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="1" {p}:role="${SOAP12}/role/ultimateReceiver"/>`,
  '<w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="1" {p}:role="http://example.org/gateway"/>',
  '<a:Fine xmlns:a="urn:a"/><w:Security xmlns:w="urn:example:wsse" {p}:mustUnderstand="1"/>',
];

/** Headers not marked: ignored, the call answered. */
const NOT_MARKED = [
  '<w:Note xmlns:w="urn:example:note">n</w:Note>',
  '<w:Note xmlns:w="urn:example:note" {p}:mustUnderstand="0"/>',
  '<w:Note xmlns:w="urn:example:note" {p}:mustUnderstand="false"/>',
  '<w:Note xmlns:w="urn:example:note" {p}:mustUnderstand="yes"/>',
];

export const PROTOCOL_CLASSES: readonly ProtocolClass[] = [
  {
    name: "two UTF-8 byte order marks before the document",
    expected: "400 MalformedXml, no fault",
    bend: (r) => ({ ...cloneRequest(r), body: Buffer.concat([BOM, BOM, r.body]) }),
    check: (a) =>
      a.status !== 400
        ? `status ${a.status}, want 400`
        : a.headers["x-error-code"] !== "MalformedXml"
          ? `code ${a.headers["x-error-code"]}`
          : undefined,
  },
  {
    name: "one UTF-8 byte order mark (the control)",
    expected: "200",
    bend: (r) => ({ ...cloneRequest(r), body: Buffer.concat([BOM, r.body]) }),
    check: answered,
  },
  {
    name: `an unknown SOAP header marked mustUnderstand (${MARKED.length} forms: 1/true, either envelope namespace, actor/role)`,
    expected: "500 MustUnderstand fault, no detail",
    bend: (r, i) => withHeader(r, MARKED[i % MARKED.length]!),
    check: (a) => {
      const fault = faultOf(a);
      if (a.status !== 500 || !fault) return `status ${a.status}${fault ? "" : ", no fault"}`;
      if (fault.code !== "MustUnderstand") return `fault code ${fault.code}`;
      return fault.detail ? "a detail element" : undefined;
    },
  },
  {
    name: "unknown SOAP headers not marked (none, 0, false, yes: the control)",
    expected: "200",
    bend: (r, i) => withHeader(r, NOT_MARKED[i % NOT_MARKED.length]!),
    check: answered,
  },
];

export const PROTOCOL_PATHS = ["/node/default", "/fetch/default", "/middleware/default"] as const;

export interface ProtocolResult {
  readonly sent: number;
  readonly expected: number;
  readonly problems: readonly string[];
}

/** Every SOAP base request bent into the class, through each adapter of the faults listener on `port`. */
export async function runProtocolClass(port: number, c: ProtocolClass): Promise<ProtocolResult> {
  const soap = baseRequests().filter((r) => r.binding === "soap11" || r.binding === "soap12");
  let sent = 0;
  let expected = 0;
  const problems: string[] = [];
  for (const path of PROTOCOL_PATHS) {
    for (let i = 0; i < soap.length; i++) {
      const request = c.bend(soap[i]!, i);
      request.target = `${path}${ENDPOINT}`;
      const outcome = await exchangeOnce(port, serialize(request), { timeoutMs: 10_000 });
      sent++;
      const problem = outcome.kind !== "answer" ? outcome.detail : (judgeAnswer(outcome) ?? c.check(outcome));
      if (problem === undefined) expected++;
      else if (problems.length < 8)
        problems.push(`${path} ${request.binding} ${request.operation}: ${problem}`);
    }
  }
  return { sent, expected, problems };
}
