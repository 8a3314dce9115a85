// A WSDL's structure for comparing two WSDLs (ours and the one imported): operations, messages, schema
// types and bindings' operations, with QNames resolved and documentation left out; not bytes.

import { readTree, attr, lookupPrefix, type Node } from "../../generator/import/xml-tree.js";
import { MSTYPES_NS, WSDL_NS, XS_NS } from "../../generator/import/wsdl.js";

/**
 * The parts of a WSDL that must match: operations, messages, schema types (the service namespace's and .NET's
 * own; with otherSchemas, every schema's but the HTTP bindings' abstract types), bindings' operations.
 */
export function wsdlStructure(text: string, { otherSchemas = false } = {}) {
  const root = readTree(text, { maxDepth: 32, maxElements: 200_000 });
  const q = (node: Node, value: string | undefined) => {
    if (value === undefined) return undefined;
    const colon = value.indexOf(":");
    return `{${lookupPrefix(node, colon < 0 ? "" : value.slice(0, colon))}}${value.slice(colon + 1)}`;
  };
  const describe = (node: Node): unknown => {
    // A schema or WSDL element as a comparable object; documentation left out. Iterative: a stack.
    const result: Record<string, unknown> = {};
    const stack: { node: Node; into: Record<string, unknown> }[] = [{ node, into: result }];
    while (stack.length > 0) {
      const { node: n, into } = stack.pop()!;
      into.tag = `${n.local}`;
      for (const a of n.el.attrs) {
        if (a.ns !== "") continue;
        into[a.local] = ["type", "base", "ref", "element", "message", "binding"].includes(a.local)
          ? q(n, a.value)
          : a.value;
      }
      const kids: Record<string, unknown>[] = [];
      for (const c of n.children) {
        if (c.local === "documentation") continue;
        const k: Record<string, unknown> = {};
        kids.push(k);
        stack.push({ node: c, into: k });
      }
      if (kids.length > 0) into.children = kids;
    }
    return result;
  };
  const tns = attr(root, "targetNamespace");
  const schemaItems: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const portTypes: Record<string, unknown> = {};
  const bindings: Record<string, unknown> = {};
  for (const c of root.children) {
    if (c.ns !== WSDL_NS) continue;
    if (c.local === "types") {
      for (const schema of c.children) {
        // The service's schema, and .NET's own (guid, char) when present.
        const target = attr(schema, "targetNamespace");
        const other = otherSchemas && target !== undefined && !target.endsWith("AbstractTypes");
        if (target !== tns && target !== MSTYPES_NS && !other) continue;
        const prefix = target === tns ? "" : target === MSTYPES_NS ? "{ms} " : `{${target}} `;
        for (const item of schema.children) {
          if (item.ns === XS_NS && item.local !== "import")
            schemaItems[`${prefix}${item.local} ${attr(item, "name")}`] = describe(item);
        }
      }
    }
    if (c.local === "message") messages[attr(c, "name")!] = describe(c);
    if (c.local === "portType") portTypes[attr(c, "name")!] = describe(c);
    if (c.local === "binding") bindings[attr(c, "name")!] = describe(c);
  }
  return { tns, schemaItems, messages, portTypes, bindings };
}
