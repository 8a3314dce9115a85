// The WSDL check of the remote mode: `?WSDL` is served as text/xml and describes the four bindings
// (docs/wire.md §7), each with every operation of the spec.

import { childNamed, readTree, type XNode } from "../canonical.js";
import type { ReferenceAnswer } from "../reference/errors.js";
import type { RefBinding, RefService } from "../reference/spec.js";

const WSDL = "http://schemas.xmlsoap.org/wsdl/";
const WSDL_SOAP = "http://schemas.xmlsoap.org/wsdl/soap/";
const WSDL_SOAP12 = "http://schemas.xmlsoap.org/wsdl/soap12/";
const WSDL_HTTP = "http://schemas.xmlsoap.org/wsdl/http/";

export interface CheckRow {
  readonly name: string;
  readonly outcome: "passed" | "failed" | "skipped";
  readonly detail: string;
}

function attr(node: XNode, local: string): string | undefined {
  return node.attrs.find((a) => a.ns === "" && a.local === local)?.value;
}

/** Which of the four bindings a wsdl:binding element is, from its protocol child. */
function bindingKind(binding: XNode): RefBinding | undefined {
  if (childNamed(binding, WSDL_SOAP, "binding")) return "soap11";
  if (childNamed(binding, WSDL_SOAP12, "binding")) return "soap12";
  const verb = attr(childNamed(binding, WSDL_HTTP, "binding") ?? binding, "verb");
  return verb === "GET" ? "httpGet" : verb === "POST" ? "httpPost" : undefined;
}

export function checkWsdl(answer: ReferenceAnswer | Error, service: RefService): CheckRow[] {
  const kinds: RefBinding[] = ["soap11", "soap12", "httpGet", "httpPost"];
  const failAll = (why: string): CheckRow[] => [
    { name: "wsdl/served", outcome: "failed", detail: why },
    ...kinds.map((k): CheckRow => ({ name: `wsdl/${k}`, outcome: "failed", detail: "no WSDL to read" })),
  ];
  if (answer instanceof Error) return failAll(answer.message);
  const contentType = (answer.headers["content-type"] ?? "").toLowerCase();
  if (answer.status !== 200 || !contentType.startsWith("text/xml"))
    return failAll(`status ${answer.status}, ${contentType || "no content type"}`);
  let root: XNode;
  try {
    root = readTree(answer.body);
  } catch (error) {
    return failAll((error as Error).message);
  }
  if (root.ns !== WSDL || root.local !== "definitions")
    return failAll(`root {${root.ns}}${root.local} is not wsdl:definitions`);
  const target = attr(root, "targetNamespace");
  const rows: CheckRow[] = [
    target === service.namespace
      ? { name: "wsdl/served", outcome: "passed", detail: `targetNamespace ${target}` }
      : {
          name: "wsdl/served",
          outcome: "failed",
          detail: `targetNamespace ${target ?? "(none)"}, want ${service.namespace}`,
        },
  ];
  const bindings = root.children.filter((c) => c.ns === WSDL && c.local === "binding");
  const wanted = [...service.operations.keys()].sort();
  for (const kind of kinds) {
    const binding = bindings.find((b) => bindingKind(b) === kind);
    if (!binding) {
      rows.push({ name: `wsdl/${kind}`, outcome: "failed", detail: "no such wsdl:binding" });
      continue;
    }
    const ops = binding.children
      .filter((c) => c.ns === WSDL && c.local === "operation")
      .map((c) => attr(c, "name") ?? "");
    const missing = wanted.filter((w) => !ops.includes(w));
    const extra = ops.filter((o) => !wanted.includes(o));
    const name = attr(binding, "name") ?? "";
    rows.push(
      missing.length === 0 && extra.length === 0
        ? { name: `wsdl/${kind}`, outcome: "passed", detail: `${name}: ${ops.length} operations` }
        : {
            name: `wsdl/${kind}`,
            outcome: "failed",
            detail: `${name}: missing ${missing.join(", ") || "none"}; extra ${extra.join(", ") || "none"}`,
          },
    );
  }
  return rows;
}
