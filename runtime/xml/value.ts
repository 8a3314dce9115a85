// XML values (the spec's xmlElement and xmlNode types, .NET's XmlElement and XmlNode): one element, held as
// the tree every reader makes (tree.ts XmlElement), read from the element that carries it and written back
// with the namespace declarations it needs.
//
// Reading takes the holder's one child element, as ASMX writes it (`<OpResult><order xmlns="…">…</order>
// </OpResult>`) and refuses anything else with a reason: text where an element is expected, several
// elements, and mixed content anywhere inside (text between child elements), which the tree cannot keep in
// order. Writing checks a caller's or handler's value first (names, strings, no mixed content, at most
// MAX_XML_VALUE_DEPTH levels and MAX_XML_VALUE_NODES elements and attributes, so a cyclic object is refused,
// not followed) and makes the markup from the checked tree, never from text the value holds: a value cannot
// inject markup into the message around it. The root always declares its default namespace (`xmlns=""`
// included), so the value reads the same whatever surrounds it; prefixes are kept as written (QName texts
// inside may depend on them), attributes in a namespace get a prefix in scope or a new one. Every walk is a
// loop over an explicit stack.

import type { XmlAttribute, XmlElement } from "./tree.js";
import { escapeAttr, escapeText } from "./write.js";

/** How deep a value may nest (its root is level 1); the readers' whole-document limit is 32. */
export const MAX_XML_VALUE_DEPTH = 32;
/** Most elements and attributes one value may hold when written. */
export const MAX_XML_VALUE_NODES = 100_000;

const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
/** An NCName (no colon) of the Basic Multilingual Plane: a letter or `_`, then letters, digits, `.`, `-`, `_` and the other name characters. */
export const NCNAME: RegExp =
  /^[A-Za-z_\u00C0-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD](?:[A-Za-z0-9_.\-\u00B7\u00C0-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u203F-\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]|[\u0300-\u036F])*$/;

const isBlank = (text: string): boolean => /^[ \t\r\n]*$/.test(text);

/** Why an XML value cannot be read or written; the message names the value. */
export class XmlValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XmlValueError";
  }
}

/**
 * The XML value an element holds: its one child element, or null for an element holding nothing (or only
 * whitespace). Throws XmlValueError, naming `label`, for text, several elements, or mixed content inside.
 */
export function xmlValueOf(holder: XmlElement, label: string): XmlElement | null {
  const children = holder.children;
  if (children.length === 0) {
    if (isBlank(holder.text)) return null;
    throw new XmlValueError(`${label} holds text where an XML element is expected.`);
  }
  if (children.length > 1)
    throw new XmlValueError(`${label} holds ${children.length} XML elements; an XML value is one element.`);
  if (!isBlank(holder.text))
    throw new XmlValueError(`${label} holds text beside its XML element; an XML value is one element.`);
  // A copy without the whitespace between elements (not significant here, as XmlDocument drops it by
  // default): the same value however the answer was indented.
  const root: Copy = { ...children[0]!, children: [] };
  const stack: [from: XmlElement, to: Copy][] = [[children[0]!, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    if (from.children.length === 0) continue;
    if (!isBlank(from.text))
      throw new XmlValueError(
        `${label}: element ${from.local} holds both text and elements (mixed content), which an XML value cannot keep in order.`,
      );
    to.text = "";
    for (const c of from.children) {
      const copy: Copy = { ...c, children: [] };
      to.children.push(copy);
      stack.push([c, copy]);
    }
  }
  return root;
}

interface Copy {
  readonly ns: string;
  readonly local: string;
  readonly prefix: string;
  readonly attrs: readonly XmlAttribute[];
  children: Copy[];
  text: string;
}

type Fail = (message: string) => Error;

/** A checked copy of one element's own data (its children are checked as the walk reaches them). */
interface Checked {
  readonly ns: string;
  readonly local: string;
  readonly prefix: string;
  readonly attrs: readonly XmlAttribute[];
  readonly children: readonly unknown[];
  readonly text: string;
}

function str(value: unknown, what: string, fail: Fail): string {
  if (typeof value !== "string") throw fail(`${what} is not a string`);
  return value;
}

function checkElement(value: unknown, where: string, fail: Fail): Checked {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw fail(`${where} is not an XML element (an object with ns, local, attrs, children and text)`);
  const v = value as Readonly<Record<string, unknown>>;
  const local = str(v["local"], `${where}.local`, fail);
  if (!NCNAME.test(local)) throw fail(`${where}.local, "${local.slice(0, 40)}", is not an XML name`);
  const ns = v["ns"] === undefined ? "" : str(v["ns"], `${where}.ns`, fail);
  let prefix = v["prefix"] === undefined ? "" : str(v["prefix"], `${where}.prefix`, fail);
  // A prefix that cannot be declared for this namespace is dropped: the element is written unprefixed.
  if (prefix !== "" && (ns === "" || !NCNAME.test(prefix) || /^xml/i.test(prefix))) prefix = "";
  const text = v["text"] === undefined ? "" : str(v["text"], `${where}.text`, fail);
  const attrs = v["attrs"] === undefined ? [] : v["attrs"];
  const children = v["children"] === undefined ? [] : v["children"];
  if (!Array.isArray(attrs)) throw fail(`${where}.attrs is not an array`);
  if (!Array.isArray(children)) throw fail(`${where}.children is not an array`);
  if (children.length > 0 && !isBlank(text))
    throw fail(
      `${where} holds both text and elements (mixed content), which an XML value cannot keep in order`,
    );
  const seen = new Set<string>();
  const checked: XmlAttribute[] = [];
  for (let i = 0; i < attrs.length; i++) {
    const a: unknown = attrs[i];
    const at = `${where}.attrs[${i}]`;
    if (typeof a !== "object" || a === null) throw fail(`${at} is not an attribute (ns, local, value)`);
    const r = a as Readonly<Record<string, unknown>>;
    const aLocal = str(r["local"], `${at}.local`, fail);
    if (!NCNAME.test(aLocal)) throw fail(`${at}.local, "${aLocal.slice(0, 40)}", is not an XML name`);
    const aNs = r["ns"] === undefined ? "" : str(r["ns"], `${at}.ns`, fail);
    if (aNs === XMLNS_NS || (aNs === "" && aLocal === "xmlns"))
      throw fail(`${at} is a namespace declaration: they are written as the names need them`);
    const key = `${aNs} ${aLocal}`;
    if (seen.has(key)) throw fail(`${at}: the attribute ${aLocal} appears twice`);
    seen.add(key);
    checked.push({ ns: aNs, local: aLocal, value: str(r["value"], `${at}.value`, fail) });
  }
  return { ns, local, prefix, attrs: checked, children, text };
}

/** In-scope namespace declarations while writing: prefix → namespace, with an undo list per element. */
class Scope {
  private readonly byPrefix = new Map<string, string>([["xml", XML_NS]]);
  private readonly undo: [prefix: string, previous: string | undefined][][] = [];
  /** Per namespace, the prefixes declared for it, innermost last (some may be shadowed since). */
  private readonly byNs = new Map<string, string[]>();
  private counter = 0;
  push(): void {
    this.undo.push([]);
  }
  pop(): void {
    for (const [prefix, previous] of this.undo.pop()!.reverse()) {
      this.byNs.get(this.byPrefix.get(prefix)!)!.pop();
      if (previous === undefined) this.byPrefix.delete(prefix);
      else this.byPrefix.set(prefix, previous);
    }
  }
  get(prefix: string): string | undefined {
    return this.byPrefix.get(prefix);
  }
  declare(prefix: string, ns: string): void {
    this.undo.at(-1)!.push([prefix, this.byPrefix.get(prefix)]);
    this.byPrefix.set(prefix, ns);
    let list = this.byNs.get(ns);
    if (list === undefined) this.byNs.set(ns, (list = []));
    list.push(prefix);
  }
  /** A prefix in scope for the namespace (the innermost not redeclared since), if any. */
  prefixOf(ns: string): string | undefined {
    const list = this.byNs.get(ns) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (this.byPrefix.get(list[i]!) === ns) return list[i];
    return undefined;
  }
  /** A prefix for an attribute's namespace: "xsi" for XML Schema instance if free, else a new `aN`. */
  fresh(ns: string): string {
    if (ns === XSI_NS && !this.byPrefix.has("xsi")) return "xsi";
    let prefix: string;
    do prefix = `a${++this.counter}`;
    while (this.byPrefix.has(prefix));
    return prefix;
  }
}

/**
 * The markup of an XML value (a caller's or handler's; checked as the module's head says), in the compact
 * layout or indented with the root at `depth` (its line break and indentation are the caller's). Throws
 * `fail(message)` naming `label` for a value that is not one.
 */
export function xmlValueMarkup(
  value: unknown,
  label: string,
  pretty: boolean,
  depth: number,
  fail: Fail,
): string {
  try {
    return markupOf(value, label, pretty, depth, fail);
  } catch (error) {
    // escapeText/escapeAttr: a character XML 1.0 cannot carry.
    if (error instanceof RangeError) throw fail(`${label} ${error.message}`);
    throw error;
  }
}

function markupOf(value: unknown, label: string, pretty: boolean, depth: number, fail: Fail): string {
  const scope = new Scope();
  let nodes = 0;
  let xml = "";
  // Work items: an element to open (with its path for messages and its depth), or a closing tag.
  type Item = { readonly open: unknown; readonly where: string; readonly level: number } | string;
  const stack: Item[] = [{ open: value, where: label, level: 1 }];
  let defaultNs: string | undefined; // undefined: not yet declared (the root declares it)
  const defaults: (string | undefined)[] = [];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === "string") {
      xml += item;
      scope.pop();
      defaultNs = defaults.pop();
      continue;
    }
    if (item.level > MAX_XML_VALUE_DEPTH)
      throw fail(`${label} nests deeper than ${MAX_XML_VALUE_DEPTH} elements (or holds itself)`);
    const el = checkElement(item.open, item.where, fail);
    nodes += 1 + el.attrs.length;
    if (nodes > MAX_XML_VALUE_NODES)
      throw fail(`${label} holds more than ${MAX_XML_VALUE_NODES} elements and attributes`);
    scope.push();
    defaults.push(defaultNs);
    let decls = "";
    if (el.prefix === "") {
      if (defaultNs !== el.ns) {
        decls += ` xmlns="${escapeAttr(el.ns)}"`;
        defaultNs = el.ns;
      }
    } else if (scope.get(el.prefix) !== el.ns) {
      decls += ` xmlns:${el.prefix}="${escapeAttr(el.ns)}"`;
      scope.declare(el.prefix, el.ns);
    }
    let attrs = "";
    for (const a of el.attrs) {
      let name = a.local;
      if (a.ns === XML_NS) name = `xml:${a.local}`;
      else if (a.ns !== "") {
        let prefix = el.prefix !== "" && el.ns === a.ns ? el.prefix : undefined;
        prefix ??= scope.prefixOf(a.ns);
        if (prefix === undefined) {
          prefix = scope.fresh(a.ns);
          decls += ` xmlns:${prefix}="${escapeAttr(a.ns)}"`;
          scope.declare(prefix, a.ns);
        }
        name = `${prefix}:${a.local}`;
      }
      attrs += ` ${name}="${escapeAttr(a.value)}"`;
    }
    const name = el.prefix === "" ? el.local : `${el.prefix}:${el.local}`;
    const indent = pretty ? `\n${"  ".repeat(depth + item.level - 1)}` : "";
    const before = item.level === 1 ? "" : indent;
    if (el.children.length === 0) {
      xml +=
        el.text === ""
          ? `${before}<${name}${decls}${attrs} />`
          : `${before}<${name}${decls}${attrs}>${escapeText(el.text)}</${name}>`;
      scope.pop();
      defaultNs = defaults.pop();
      continue;
    }
    xml += `${before}<${name}${decls}${attrs}>`;
    stack.push(`${pretty ? `\n${"  ".repeat(depth + item.level - 1)}` : ""}</${name}>`);
    for (let i = el.children.length - 1; i >= 0; i--)
      stack.push({ open: el.children[i], where: `${item.where}.children[${i}]`, level: item.level + 1 });
  }
  return xml;
}

/** A checked, plain copy of an XML value (for a wire form that outlives the caller's object). */
export function checkXmlValue(value: unknown, label: string, fail: Fail): XmlElement {
  // Checking is writing without keeping the text: one walk, the same refusals.
  xmlValueMarkup(value, label, false, 0, fail);
  return value as XmlElement;
}
