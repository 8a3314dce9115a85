// Canonical XML for comparing answers: parsed with fast-xml-parser, names resolved to {namespace}local,
// attributes sorted, namespace declarations and prefixes ignored (also in QName-valued type/ref
// attributes), whitespace-only text between elements ignored, leaf text kept exactly.

import { XMLParser, XMLValidator } from "fast-xml-parser";

export interface XAttr {
  readonly ns: string;
  readonly local: string;
  readonly value: string;
}

export interface XNode {
  readonly ns: string;
  readonly local: string;
  readonly attrs: readonly XAttr[];
  readonly children: readonly XNode[];
  /** Character data directly inside the element, references decoded, CDATA included. */
  readonly text: string;
}

const XML_NS = "http://www.w3.org/XML/1998/namespace";
const QNAME_VALUED = new Set(["type", "ref", "base"]);
const REFERENCE = /&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;
const NAMED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: "#cdata",
  commentPropName: "#comment",
});

type RawNode = Record<string, RawNode[] | string | Record<string, string>>;

function decode(raw: string): string {
  return raw.replace(REFERENCE, (_m, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return NAMED[ref];
  });
}

function splitName(qname: string): [string, string] {
  const colon = qname.indexOf(":");
  return colon < 0 ? ["", qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

function resolve(prefix: string, scope: ReadonlyMap<string, string>, what: string): string {
  if (prefix === "xml") return XML_NS;
  const ns = scope.get(prefix);
  if (ns === undefined && prefix !== "") throw new Error(`undeclared prefix ${prefix} on ${what}`);
  return ns ?? "";
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function textOf(items: readonly RawNode[]): string {
  let text = "";
  for (const item of items) {
    if (typeof item["#text"] === "string") text += decode(item["#text"]);
    else if (Array.isArray(item["#cdata"]))
      text += (item["#cdata"] as RawNode[]).map((t) => String(t["#text"] ?? "")).join("");
  }
  return text;
}

function convert(raw: RawNode, parentScope: ReadonlyMap<string, string>): XNode {
  const name = Object.keys(raw).find((k) => k !== ":@") ?? "";
  const rawAttrs = (raw[":@"] ?? {}) as Record<string, string>;
  const scope = new Map(parentScope);
  for (const [key, value] of Object.entries(rawAttrs)) {
    if (key === "xmlns") scope.set("", decode(value));
    else if (key.startsWith("xmlns:")) scope.set(key.slice(6), decode(value));
  }
  const attrs: XAttr[] = [];
  for (const [key, value] of Object.entries(rawAttrs)) {
    if (key === "xmlns" || key.startsWith("xmlns:")) continue;
    const [prefix, local] = splitName(key);
    let text = decode(value);
    if (QNAME_VALUED.has(local) && prefix === "" && text.includes(":")) {
      const [valuePrefix, valueLocal] = splitName(text);
      if (scope.has(valuePrefix)) text = `{${scope.get(valuePrefix)}}${valueLocal}`;
    }
    attrs.push({ ns: prefix === "" ? "" : resolve(prefix, scope, key), local, value: text });
  }
  const items = raw[name] as RawNode[];
  const [prefix, local] = splitName(name);
  return {
    ns: resolve(prefix, scope, name),
    local,
    attrs: attrs.sort((a, b) => compareKeys(`{${a.ns}}${a.local}`, `{${b.ns}}${b.local}`)),
    children: items
      .filter((item) => !Object.keys(item).some((k) => k.startsWith("#")))
      .map((item) => convert(item, scope)),
    text: textOf(items),
  };
}

/** Parses a document into a namespace-resolved tree; throws when it is not well-formed XML. */
export function readTree(xml: string): XNode {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const roots = (parser.parse(xml) as RawNode[]).filter(
    (n) => !Object.keys(n).some((k) => k.startsWith("#")),
  );
  if (roots.length !== 1) throw new Error(`expected one root element, found ${roots.length}`);
  return convert(roots[0], new Map());
}

function lines(node: XNode, depth: number, out: string[]): void {
  const attrs = node.attrs.map((a) => ` @{${a.ns}}${a.local}=${JSON.stringify(a.value)}`).join("");
  const leafText = node.children.length === 0 ? ` = ${JSON.stringify(node.text)}` : "";
  out.push(`${"  ".repeat(depth)}{${node.ns}}${node.local}${attrs}${leafText}`);
  if (node.children.length > 0 && node.text.trim() !== "")
    out.push(`${"  ".repeat(depth + 1)}#text ${JSON.stringify(node.text)}`);
  for (const child of node.children) lines(child, depth + 1, out);
}

/** One line per element: `{ns}local @{ns}attr="v" = "leaf text"`, children indented. */
export function canonicalXml(xml: string): string {
  const out: string[] = [];
  lines(readTree(xml), 0, out);
  return out.join("\n");
}

/** The first child with this namespace and local name. */
export function childNamed(node: XNode | undefined, ns: string, local: string): XNode | undefined {
  return node?.children.find((c) => c.ns === ns && c.local === local);
}
