// The WSDL as a tree with what the runtime's reader (runtime/xml/scan.ts) leaves out: the line of each
// start tag and the namespace declarations on it, so QName attribute values (type="s:int",
// element="tns:Add") can be resolved and every error can name its line.
//
// readXml checks well-formedness, refuses DTDs and bounds depth, attributes and node count. Only then
// does one linear pass over the same text find the start tags: in a well-formed document every `<`
// outside comments, CDATA sections and processing instructions opens a start or end tag (attribute
// values and text cannot hold a raw `<`), and start tags appear in document order, which is the
// pre-order of the element tree. No recursion anywhere: both walks use explicit stacks.

import { readXml } from "../../runtime/xml/scan.js";
import { XmlRefusal, type XmlElement } from "../../runtime/xml/tree.js";

export interface Node {
  readonly ns: string;
  readonly local: string;
  /** Prefix as written, for messages only. */
  readonly prefix: string;
  readonly line: number;
  readonly parent: Node | undefined;
  readonly children: readonly Node[];
  readonly el: XmlElement;
  /** Namespace declarations on this start tag: prefix ("" for the default namespace) → URI. */
  readonly decls: ReadonlyMap<string, string> | undefined;
}

interface StartTag {
  readonly line: number;
  readonly qname: string;
  readonly decls: Map<string, string> | undefined;
}

export interface TreeLimits {
  readonly maxDepth: number;
  readonly maxElements: number;
}

export class XmlReadError extends Error {}

export function readTree(text: string, limits: TreeLimits): Node {
  let root: XmlElement;
  try {
    root = readXml(text, { maxDepth: limits.maxDepth, maxElements: limits.maxElements });
  } catch (e) {
    if (e instanceof XmlRefusal)
      throw new XmlReadError(`not a well-formed XML document the reader accepts: ${e.message}`);
    throw e;
  }
  const tags = startTags(text);
  let next = 0;
  const top: { node: Node; kids: Node[] } = wrap(root, undefined);
  const stack: { el: XmlElement; parent: Node; kids: Node[] }[] = [];
  pushChildren(root, top.node, top.kids);
  while (stack.length > 0) {
    const { el, parent, kids } = stack.pop()!;
    const made = wrap(el, parent);
    kids.push(made.node);
    pushChildren(el, made.node, made.kids);
  }
  if (next !== tags.length) throw new Error(`internal: ${tags.length} start tags for ${next} elements`);
  return top.node;

  function pushChildren(el: XmlElement, parent: Node, kids: Node[]): void {
    for (let k = el.children.length - 1; k >= 0; k--) stack.push({ el: el.children[k]!, parent, kids });
  }

  function wrap(el: XmlElement, parent: Node | undefined): { node: Node; kids: Node[] } {
    const tag = tags[next++];
    const colon = tag === undefined ? -1 : tag.qname.indexOf(":");
    if (tag === undefined || tag.qname.slice(colon + 1) !== el.local) {
      throw new Error(`internal: start tag ${next} does not match element ${el.local}`);
    }
    const kids: Node[] = [];
    const node: Node = {
      ns: el.ns,
      local: el.local,
      prefix: el.prefix,
      line: tag.line,
      parent,
      children: kids,
      el,
      decls: tag.decls,
    };
    return { node, kids };
  }
}

/** Every start tag of a well-formed document, in order, with its line and namespace declarations. */
function startTags(s: string): StartTag[] {
  const tags: StartTag[] = [];
  let line = 1;
  let counted = 0;
  const lineAt = (pos: number): number => {
    for (; counted < pos; counted++) {
      const c = s.charCodeAt(counted);
      if (c === 10 || (c === 13 && s.charCodeAt(counted + 1) !== 10)) line++;
    }
    return line;
  };
  let i = 0;
  for (;;) {
    const lt = s.indexOf("<", i);
    if (lt < 0) break;
    const c = s.charCodeAt(lt + 1);
    if (c === 33 /* ! */) {
      if (s.startsWith("<!--", lt)) i = endOf(s, "-->", lt + 4);
      else if (s.startsWith("<![CDATA[", lt)) i = endOf(s, "]]>", lt + 9);
      else i = endOf(s, ">", lt + 2);
      continue;
    }
    if (c === 63 /* ? */) {
      i = endOf(s, "?>", lt + 2);
      continue;
    }
    if (c === 47 /* / */) {
      i = endOf(s, ">", lt + 2);
      continue;
    }
    // A start tag: the name, then attributes up to > or />; values are quoted and may hold '>'.
    let j = lt + 1;
    while (j < s.length && !isSpace(s.charCodeAt(j)) && s[j] !== ">" && s[j] !== "/") j++;
    const qname = s.slice(lt + 1, j);
    let decls: Map<string, string> | undefined;
    for (;;) {
      while (j < s.length && isSpace(s.charCodeAt(j))) j++;
      if (j >= s.length || s[j] === ">" || s[j] === "/") break;
      const eq = s.indexOf("=", j);
      if (eq < 0) throw new Error("internal: attribute without value");
      const name = s.slice(j, eq).trim();
      let q = eq + 1;
      while (isSpace(s.charCodeAt(q))) q++;
      const quote = s[q]!;
      const close = s.indexOf(quote, q + 1);
      if (close < 0) throw new Error("internal: unterminated attribute value");
      if (name === "xmlns" || name.startsWith("xmlns:")) {
        decls ??= new Map();
        decls.set(name === "xmlns" ? "" : name.slice(6), decodeEntities(s.slice(q + 1, close)));
      }
      j = close + 1;
    }
    tags.push({ line: lineAt(lt), qname, decls });
    i = j;
  }
  return tags;
}

function endOf(s: string, marker: string, from: number): number {
  const at = s.indexOf(marker, from);
  if (at < 0) throw new Error(`internal: unterminated markup (${marker})`);
  return at + marker.length;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(v: string): string {
  if (!v.includes("&")) return v;
  return v.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_, ref: string) =>
    ref.startsWith("#x")
      ? String.fromCodePoint(parseInt(ref.slice(2), 16))
      : ref.startsWith("#")
        ? String.fromCodePoint(parseInt(ref.slice(1), 10))
        : NAMED[ref]!,
  );
}

/** Resolves a prefix in scope at `node`; undefined when unbound. Walks at most the depth limit. */
export function lookupPrefix(node: Node, prefix: string): string | undefined {
  if (prefix === "xml") return "http://www.w3.org/XML/1998/namespace";
  for (let n: Node | undefined = node; n !== undefined; n = n.parent) {
    const uri = n.decls?.get(prefix);
    if (uri !== undefined) return uri;
  }
  return prefix === "" ? "" : undefined;
}

export function attr(node: Node, local: string): string | undefined {
  for (const a of node.el.attrs) if (a.ns === "" && a.local === local) return a.value;
  return undefined;
}

/** All character data inside the element and its descendants, whitespace collapsed. */
export function deepText(node: Node): string {
  const parts: string[] = [];
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    parts.push(n.el.text);
    for (let k = n.children.length - 1; k >= 0; k--) stack.push(n.children[k]!);
  }
  return parts.join(" ").replace(/\s+/g, " ").trim();
}
