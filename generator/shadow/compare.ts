// Compares the legacy host's answer with ours as an ASMX client would tell them apart: HTTP status, media
// type and charset, then the body by what it is. XML is compared as canonical XML (runtime/xml's hardened
// reader: names by namespace URI and local name, never prefix; attributes in any order; whitespace between
// elements ignored; leaf text exact; QName values such as xsi:type by namespace; a DataSet's inline schema
// by its tables and columns, not by the attributes and annotations that vary between .NET versions); a
// fault by its code (SOAP 1.1 faultcode, SOAP 1.2 Code and Subcodes), never by its wording or detail; an
// HTTP GET/POST error text by its exception type; a 400 by its status alone. Paths the config calls
// volatile (generated ids, timestamps) are not compared. The verdict names the first differing path.
//
// A difference docs/wire.md §9 documents as one of ours (our validation refusing what ASMX runs, our
// reader limits, ASP.NET request validation, PUT/DELETE) is "explained" rather than "diverged", named.
//
// Hostile input: both answers come from hosts the proxy talks to, but they may echo whatever a caller
// sent. Everything is bounded: the caller passes bodies no larger than limits.compareBytes, the reader
// refuses depth, attribute and node counts past its limits, and every walk here is linear in the tree.

import { SOAP11_ENVELOPE_NS } from "../../runtime/protocol/soap11.js";
import { SOAP12_ENVELOPE_NS } from "../../runtime/protocol/soap12.js";
import { readXml } from "../../runtime/xml/scan.js";
import type { XmlElement } from "../../runtime/xml/tree.js";
import { formatPath, pathMatches, type ElementStep, type VolatilePath } from "./paths.js";

/** An HTTP answer as collected: lower-case header names (repeated ones joined by ", "). */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

export type Outcome = "matched" | "diverged" | "explained";

export interface Verdict {
  readonly outcome: Outcome;
  /** The first differing path: "status", "content-type", "fault-code", "exception", "body" or an element path. */
  readonly path?: string;
  /** What differs there, in words. */
  readonly what?: string;
  /** The two values at the path (shortened; "[redacted]" for a secret). */
  readonly legacy?: string;
  readonly ours?: string;
  /** The deliberate difference that explains it (outcome "explained"): an id and the sentence. */
  readonly known?: { readonly id: string; readonly why: string };
}

export interface CompareRules {
  /** Paths not compared (config volatile, the operation's and every operation's). */
  readonly volatile: readonly VolatilePath[];
  /** Element names whose values a verdict must not show. */
  readonly secrets?: ReadonlySet<string>;
  /** Texts meaning "a value was here, not stored" (record/replay): an element holding one is not compared. */
  readonly placeholder?: RegExp;
}

const XSD_NS = "http://www.w3.org/2001/XMLSchema";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
const MAX_SHOWN = 200;
/** Reader limits for answers: deeper than a request may be (a DataSet inside an envelope), still bounded. */
const READ_LIMITS = { maxDepth: 64, maxAttributes: 256, maxElements: 1_000_000 } as const;
/** Schema attributes that carry meaning for a DataSet's columns; the rest (msdata:*, id) vary by host. */
const SCHEMA_ATTRIBUTES = new Set([
  "name",
  "type",
  "ref",
  "base",
  "minOccurs",
  "maxOccurs",
  "nillable",
  "value",
]);
const QNAME_IN_SCHEMA = new Set(["type", "ref", "base"]);

/** The media type and charset of a Content-Type, lower case: "text/xml; charset=utf-8". */
export function contentTypeKey(value: string | undefined): string {
  if (value === undefined) return "";
  const [media, ...params] = value.split(";");
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("charset="));
  const type = media!.trim().toLowerCase();
  return charset === undefined ? type : `${type}; ${charset.replace(/"/g, "")}`;
}

function shorten(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decode(body: Uint8Array): string | undefined {
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

// ---- what an answer is ----------------------------------------------------------------------------

type Body =
  | { readonly kind: "empty" }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "fault"; readonly codes: readonly string[]; readonly detailCode?: string }
  | {
      readonly kind: "xml";
      readonly root: XmlElement;
      readonly result: XmlElement;
      readonly prefixes: Prefixes;
    };

/** prefix → URI where the document binds the prefix to one URI only; null where it binds it to several. */
type Prefixes = Map<string, string | null>;

const DECLARATION = /\bxmlns:([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;

/** The document's prefix bindings, by a linear scan of its declarations (QName values need them). */
function prefixesOf(text: string, root: XmlElement): Prefixes {
  const found: Prefixes = new Map();
  const bind = (prefix: string, uri: string) => {
    const known = found.get(prefix);
    if (known === undefined) found.set(prefix, uri);
    else if (known !== uri) found.set(prefix, null);
  };
  for (const m of text.matchAll(DECLARATION)) bind(m[1]!, (m[2] ?? m[3])!);
  // The elements' own prefixes are bindings the reader resolved: exact.
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.prefix !== "") bind(el.prefix, el.ns);
    for (const child of el.children) stack.push(child);
  }
  return found;
}

/** A QName value by namespace when its prefix is bound to one URI in the document; else as written. */
function resolveQName(value: string, prefixes: Prefixes): string {
  const colon = value.indexOf(":");
  if (colon <= 0) return value;
  const uri = prefixes.get(value.slice(0, colon));
  return uri === undefined || uri === null ? value : `{${uri}}${value.slice(colon + 1)}`;
}

function childElement(parent: XmlElement, ns: string, local: string): XmlElement | undefined {
  return parent.children.find((c) => c.ns === ns && c.local === local);
}

function readBody(answer: Answer): Body {
  if (answer.body.length === 0) return { kind: "empty" };
  const text = decode(answer.body);
  if (text === undefined) return { kind: "bytes", bytes: answer.body };
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (!start.startsWith("<")) return { kind: "text", text };
  let root: XmlElement;
  try {
    root = readXml(text, READ_LIMITS);
  } catch {
    return { kind: "text", text };
  }
  const prefixes = prefixesOf(text, root);
  if (root.local === "Envelope" && (root.ns === SOAP11_ENVELOPE_NS || root.ns === SOAP12_ENVELOPE_NS)) {
    const body = childElement(root, root.ns, "Body");
    const fault = body && childElement(body, root.ns, "Fault");
    if (fault) return faultOf(fault, root.ns, prefixes);
    const response = body?.children[0];
    return { kind: "xml", root, result: response?.children[0] ?? response ?? root, prefixes };
  }
  return { kind: "xml", root, result: root, prefixes };
}

/** A fault's codes (SOAP 1.1 faultcode; SOAP 1.2 Code/Value then each Subcode/Value), by namespace. */
function faultOf(fault: XmlElement, envelope: string, prefixes: Prefixes): Body {
  const codes: string[] = [];
  const local = (qname: string) => {
    const resolved = resolveQName(qname.trim(), prefixes);
    // The envelope's own codes read best without their namespace: soap:Client is "Client".
    return resolved.startsWith(`{${envelope}}`) ? resolved.slice(envelope.length + 2) : resolved;
  };
  if (envelope === SOAP11_ENVELOPE_NS) {
    const code = fault.children.find((c) => c.local === "faultcode" && c.ns === "");
    if (code) codes.push(local(code.text));
  } else {
    let code = childElement(fault, envelope, "Code");
    for (let depth = 0; code && depth < 8; depth++) {
      const value = childElement(code, envelope, "Value");
      if (value) codes.push(local(value.text));
      code = childElement(code, envelope, "Subcode");
    }
  }
  // Ours carries its error code in the detail (<detail><Error><Code>); ASMX's detail is empty.
  const detail = fault.children.find((c) => c.local === "detail" || c.local === "Detail");
  const error = detail?.children[0];
  const detailCode = error?.children.find((c) => c.local === "Code")?.text;
  return { kind: "fault", codes, ...(detailCode === undefined ? {} : { detailCode }) };
}

// ---- canonical XML --------------------------------------------------------------------------------

interface Difference {
  /** From the result when the difference is inside it, else from the root. */
  readonly steps: readonly ElementStep[];
  readonly relative: boolean;
  readonly what: string;
  readonly legacy: string;
  readonly ours: string;
  /** The element whose value is shown (its local name decides redaction). */
  readonly name: string;
}

interface Walk {
  readonly rules: CompareRules;
  readonly legacyResult: XmlElement;
  readonly oursResult: XmlElement;
  readonly legacyPrefixes: Prefixes;
  readonly oursPrefixes: Prefixes;
}

/** Where the walk is: the steps from the root, and from the result once inside it. */
interface Place {
  readonly absolute: readonly ElementStep[];
  readonly relative: readonly ElementStep[] | undefined;
}

function nameOf(el: XmlElement): string {
  return el.ns === "" ? el.local : `{${el.ns}}${el.local}`;
}

function isWhitespace(text: string): boolean {
  return /^[ \t\r\n]*$/.test(text);
}

/** An element's attributes in canonical form: by namespace and local name, QName values resolved. */
function canonicalAttributes(el: XmlElement, inSchema: boolean, prefixes: Prefixes): [string, string][] {
  const out: [string, string][] = [];
  for (const a of el.attrs) {
    if (inSchema && (a.ns !== "" || !SCHEMA_ATTRIBUTES.has(a.local))) continue;
    const qnameValued = (a.ns === XSI_NS && a.local === "type") || (inSchema && QNAME_IN_SCHEMA.has(a.local));
    out.push([
      a.ns === "" ? a.local : `{${a.ns}}${a.local}`,
      qnameValued ? resolveQName(a.value, prefixes) : a.value,
    ]);
  }
  return out.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

/** The children that count: in a schema, annotations are documentation. */
function significantChildren(el: XmlElement, inSchema: boolean): readonly XmlElement[] {
  return inSchema ? el.children.filter((c) => !(c.ns === XSD_NS && c.local === "annotation")) : el.children;
}

/** Steps of each child: its name, its place among same-named siblings, whether that name repeats. */
function childSteps(children: readonly XmlElement[]): ElementStep[] {
  const counts = new Map<string, number>();
  for (const c of children) counts.set(c.local, (counts.get(c.local) ?? 0) + 1);
  const seen = new Map<string, number>();
  return children.map((c) => {
    const index = (seen.get(c.local) ?? 0) + 1;
    seen.set(c.local, index);
    return { name: c.local, index, repeated: counts.get(c.local)! > 1 };
  });
}

function below(place: Place, step: ElementStep): Place {
  return {
    absolute: [...place.absolute, step],
    relative: place.relative === undefined ? undefined : [...place.relative, step],
  };
}

function isVolatile(rules: CompareRules, place: Place): boolean {
  return rules.volatile.some((rule) =>
    rule.absolute
      ? pathMatches(rule, place.absolute)
      : place.relative !== undefined && pathMatches(rule, place.relative),
  );
}

function compareElements(
  walk: Walk,
  legacy: XmlElement,
  ours: XmlElement,
  place: Place,
  inSchema: boolean,
): Difference | undefined {
  // The result element starts the paths the config and the report use.
  if (legacy === walk.legacyResult && ours === walk.oursResult) place = { ...place, relative: [] };
  const at = (what: string, l: string, o: string, name = legacy.local): Difference => ({
    steps: place.relative ?? place.absolute,
    relative: place.relative !== undefined,
    what,
    legacy: l,
    ours: o,
    name,
  });
  if (legacy.ns !== ours.ns || legacy.local !== ours.local) {
    return at("the element differs", nameOf(legacy), nameOf(ours));
  }
  if (isVolatile(walk.rules, place)) return undefined;
  const schema = inSchema || (legacy.ns === XSD_NS && legacy.local === "schema");
  const la = canonicalAttributes(legacy, schema, walk.legacyPrefixes);
  const oa = canonicalAttributes(ours, schema, walk.oursPrefixes);
  for (let i = 0; i < Math.max(la.length, oa.length); i++) {
    const l = la[i];
    const o = oa[i];
    if (l?.[0] === o?.[0] && l?.[1] === o?.[1]) continue;
    if (l && o && l[0] === o[0]) return at(`attribute ${l[0]} differs`, l[1], o[1]);
    const name = l && (!o || l[0] < o[0]) ? l[0] : o![0];
    return at(
      `attribute ${name} is only in ${l && l[0] === name ? "legacy's" : "ours"}`,
      la.find((x) => x[0] === name)?.[1] ?? "(none)",
      oa.find((x) => x[0] === name)?.[1] ?? "(none)",
    );
  }
  const lc = significantChildren(legacy, schema);
  const oc = significantChildren(ours, schema);
  if (lc.length === 0 && oc.length === 0) {
    if (legacy.text === ours.text) return undefined;
    const { placeholder } = walk.rules;
    if (placeholder && (placeholder.test(legacy.text) || placeholder.test(ours.text))) return undefined;
    return at("the text differs", legacy.text, ours.text);
  }
  // Mixed content: text beside elements counts unless it is whitespace (indentation).
  const lt = isWhitespace(legacy.text) ? "" : legacy.text;
  const ot = isWhitespace(ours.text) ? "" : ours.text;
  if (lt !== ot) return at("the text beside the child elements differs", lt, ot);
  const ls = childSteps(lc);
  const os = childSteps(oc);
  const n = Math.min(lc.length, oc.length);
  for (let i = 0; i < n; i++) {
    const step = { ...ls[i]!, repeated: ls[i]!.repeated || os[i]!.repeated };
    const found = compareElements(walk, lc[i]!, oc[i]!, below(place, step), schema);
    if (found) return found;
  }
  if (lc.length !== oc.length) {
    const legacyLonger = lc.length > oc.length;
    const extra = (legacyLonger ? lc : oc)[n]!;
    const inner = below(place, (legacyLonger ? ls : os)[n]!);
    return {
      steps: inner.relative ?? inner.absolute,
      relative: inner.relative !== undefined,
      what: `only ${legacyLonger ? "legacy" : "ours"} has this element (${lc.length} vs ${oc.length} child elements)`,
      legacy: legacyLonger ? nameOf(extra) : "(none)",
      ours: legacyLonger ? "(none)" : nameOf(extra),
      name: extra.local,
    };
  }
  return undefined;
}

// ---- the verdict ------------------------------------------------------------------------------------

function diverged(path: string, what: string, legacy: string, ours: string): Verdict {
  return { outcome: "diverged", path, what, legacy: shorten(legacy), ours: shorten(ours) };
}

const MATCHED: Verdict = { outcome: "matched" };

function describeBody(body: Body): string {
  switch (body.kind) {
    case "empty":
      return "an empty body";
    case "bytes":
      return `${body.bytes.length} bytes that are not UTF-8`;
    case "text":
      return `text: ${body.text}`;
    case "fault":
      return `a fault (${body.codes.join("/") || "no code"})`;
    case "xml":
      return `XML (root ${nameOf(body.root)})`;
  }
}

/** A dotted .NET type name such as System.ArgumentException. */
const TYPE_NAME = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;

/**
 * The exception type an error text starts with ("System.ArgumentException: ..."); undefined when the text
 * is the message alone, as a deployed host (customErrors On) writes it (docs/wire.md §4).
 */
function exceptionType(text: string): string | undefined {
  const first = text.slice(0, 512).split("\n", 1)[0]!.trim();
  const colon = first.indexOf(":");
  const type = colon < 0 ? first : first.slice(0, colon).trim();
  return TYPE_NAME.test(type) ? type : undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** Compares the bodies of two answers of the same status and content type. */
function compareBodies(legacy: Body, ours: Body, status: number, rules: CompareRules): Verdict {
  if (legacy.kind !== ours.kind)
    return diverged("body", "the answers are of different kinds", describeBody(legacy), describeBody(ours));
  switch (legacy.kind) {
    case "empty":
      return MATCHED;
    case "bytes":
      return sameBytes(legacy.bytes, (ours as typeof legacy).bytes)
        ? MATCHED
        : diverged("body", "the bytes differ", "", "");
    case "text": {
      const o = (ours as typeof legacy).text;
      if (status < 400)
        return legacy.text === o ? MATCHED : diverged("body", "the text differs", legacy.text, o);
      // An error text: "System.ArgumentException: <message>"; the message's wording is the host's own.
      // A host that writes the message alone gives no type to compare: the status and content type matched.
      const l = exceptionType(legacy.text);
      const t = exceptionType(o);
      return l === undefined || t === undefined || l === t
        ? MATCHED
        : diverged("exception", "the exception type differs", l, t);
    }
    case "fault": {
      const o = (ours as typeof legacy).codes;
      return legacy.codes.join(" ") === o.join(" ")
        ? MATCHED
        : diverged("fault-code", "the fault code differs", legacy.codes.join("/"), o.join("/"));
    }
    case "xml": {
      const other = ours as typeof legacy;
      const walk: Walk = {
        rules,
        legacyResult: legacy.result,
        oursResult: other.result,
        legacyPrefixes: legacy.prefixes,
        oursPrefixes: other.prefixes,
      };
      const rootStep: ElementStep = { name: legacy.root.local, index: 1, repeated: false };
      const found = compareElements(
        walk,
        legacy.root,
        other.root,
        { absolute: [rootStep], relative: undefined },
        false,
      );
      if (!found) return MATCHED;
      const secret = rules.secrets?.has(found.name) ?? false;
      return {
        outcome: "diverged",
        path: formatPath(found.steps, !found.relative),
        what: found.what,
        legacy: secret ? "[redacted]" : shorten(found.legacy),
        ours: secret ? "[redacted]" : shorten(found.ours),
      };
    }
  }
}

/** Our error code, when our answer carries one (fault detail, or X-Error-Code on HTTP GET/POST). */
function ourCode(answer: Answer, body: Body): string | undefined {
  if (body.kind === "fault") return body.detailCode;
  return answer.headers["x-error-code"];
}

/** The client-side fault codes of both SOAP versions. */
const CLIENT_CODES = new Set(["Client", "Sender"]);

const KNOWN: Readonly<Record<string, string>> = {
  SoapActionMismatch:
    "the SOAPAction names one operation and the Body another: ASMX runs the action's with null parameters, we refuse (docs/wire.md §9)",
  UnknownSoapAction:
    "a SOAP 1.2 action that names no operation: ASMX runs the Body's operation, we refuse (docs/wire.md §9)",
  UnknownOperation:
    "the operation element is in another namespace: ASMX runs the action's with null parameters, we refuse (docs/wire.md §9)",
  InvalidEncoding: "%-escapes that are not UTF-8: ASMX hands the method U+FFFD, we refuse (docs/wire.md §9)",
  InvalidEnvelope: "an empty soap:Body or a root that is not an envelope: we refuse (docs/wire.md §9)",
  TooDeep: "nesting past our reader's limit, which ASMX reads (docs/wire.md §9, reader limits)",
  TooManyAttributes: "attributes past our reader's limit, which ASMX reads (docs/wire.md §9, reader limits)",
  TooManyElements: "elements past our reader's limit, which ASMX reads (docs/wire.md §9, reader limits)",
  BodyTooLarge: "a body past our size limit (docs/wire.md §9, reader limits)",
  ServerBusy: "our server was past its load budget and answered 503 at once (docs/wire.md §9, load)",
  MethodNotAllowed: "PUT or DELETE on an operation's path: ASMX answers 500, we answer 405 (docs/wire.md §9)",
};

/** Whether a legacy answer is ASP.NET's request validation refusing markup in a GET/POST value. */
function isRequestValidation(answer: Answer, body: Body): boolean {
  return (
    answer.status === 500 &&
    body.kind === "text" &&
    /HttpRequestValidationException|potentially dangerous Request\.(QueryString|Form) value/.test(body.text)
  );
}

/** The documented deliberate difference behind a divergence, if one is. */
function explain(legacy: Answer, legacyBody: Body, ours: Answer, oursBody: Body): Verdict["known"] {
  if (isRequestValidation(legacy, legacyBody) && ours.status < 400) {
    return {
      id: "request-validation",
      why: "markup in a GET/POST value: ASP.NET's request validation refuses it, we take it as text (docs/wire.md §9)",
    };
  }
  const code = ourCode(ours, oursBody);
  if (code === undefined) return undefined;
  const known = KNOWN[code];
  if (known !== undefined && (legacy.status < 300 || code === "MethodNotAllowed" || code === "ServerBusy")) {
    return { id: code, why: known };
  }
  // Our validation of the spec's rules (required strings, allowed values, formats, lengths, ...) refuses
  // what ASMX hands the method as it is.
  const clientSide =
    (oursBody.kind === "fault" && CLIENT_CODES.has(oursBody.codes[0] ?? "")) ||
    (oursBody.kind !== "fault" && ours.status >= 400 && ours.status < 600);
  if (clientSide && legacy.status < 300) {
    return {
      id: `validation:${code}`,
      why: `our validation refuses what ASMX ran (${code}): the spec's rules apply before any handler (docs/wire.md §9)`,
    };
  }
  return undefined;
}

/** Compares the legacy host's answer with ours. */
export function compareAnswers(legacy: Answer, ours: Answer, rules: CompareRules): Verdict {
  // The same status, media type and body bytes: whatever the body is, both read to the same thing, which
  // matches itself (no rule makes an answer differ from its own copy). The common case once the two hosts
  // agree, so the canonical reading below is left for the answers that differ in their bytes.
  if (legacy.status === ours.status && sameBytes(legacy.body, ours.body)) {
    const lt = legacy.headers["content-type"];
    const ot = ours.headers["content-type"];
    if (legacy.status === 400 || lt === ot || contentTypeKey(lt) === contentTypeKey(ot)) return MATCHED;
  }
  const legacyBody = readBody(legacy);
  const oursBody = readBody(ours);
  const verdict = ((): Verdict => {
    if (legacy.status !== ours.status) {
      return diverged("status", "the HTTP status differs", String(legacy.status), String(ours.status));
    }
    // A 400 is "not well-formed" (or our reader's limits): ASMX sends no body, ours one line (§1a).
    if (legacy.status === 400) return MATCHED;
    const lt = contentTypeKey(legacy.headers["content-type"]);
    const ot = contentTypeKey(ours.headers["content-type"]);
    if (lt !== ot && !(legacyBody.kind === "empty" && oursBody.kind === "empty")) {
      return diverged("content-type", "the content type differs", lt || "(none)", ot || "(none)");
    }
    return compareBodies(legacyBody, oursBody, legacy.status, rules);
  })();
  if (verdict.outcome !== "diverged") return verdict;
  const known = explain(legacy, legacyBody, ours, oursBody);
  return known === undefined ? verdict : { ...verdict, outcome: "explained", known };
}
