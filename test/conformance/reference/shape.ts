// Whether an answer to a valid call has the right shape when its data is unknown (a live endpoint):
// it parses, has the right root and record elements, and every value converts to its type. A
// well-formed Server/Receiver fault (or an HTTP 500 exception text) counts as "answered, fault".

import { childNamed, readTree, type XNode } from "../canonical.js";
import { contentTypeOf, type ReferenceAnswer } from "./errors.js";
import { envelopeNs } from "./request.js";
import type { RefBinding, RefField, RefOperation, RefResult, RefType } from "./spec.js";
import { typedValue } from "./values.js";

export interface ShapeVerdict {
  readonly problems: string[];
  /** What the answer was: "answered" or "answered, fault: …". */
  readonly note: string;
}

const XS = "http://www.w3.org/2001/XMLSchema";
const DIFFGR = "urn:schemas-microsoft-com:xml-diffgram-v1";
const SCHEMA_TYPES: Readonly<Record<string, RefType>> = {
  string: "string",
  int: "int",
  long: "long",
  double: "double",
  decimal: "decimal",
  dateTime: "dateTime",
  boolean: "boolean",
};

function convert(type: RefType, text: string, what: string, problems: string[]): void {
  try {
    typedValue(type, text);
  } catch (error) {
    problems.push(`${what}: ${(error as Error).message}`);
  }
}

function checkRecord(
  node: XNode,
  record: string,
  fields: readonly RefField[],
  ns: string,
  problems: string[],
): void {
  for (const child of node.children) {
    const field = fields.find((f) => f.name === child.local);
    if (!field || child.ns !== ns)
      problems.push(`${record} holds an unexpected element {${child.ns}}${child.local}`);
    else convert(field.type, child.text, `${record}.${field.name}`, problems);
  }
  for (const field of fields) {
    if (field.type !== "string" && !childNamed(node, ns, field.name))
      problems.push(`${record}.${field.name} is missing`);
  }
}

function checkDataSet(
  holder: XNode,
  result: Extract<RefResult, { kind: "dataSet" }>,
  problems: string[],
): void {
  const schema = childNamed(holder, XS, "schema");
  const diffgram = childNamed(holder, DIFFGR, "diffgram");
  if (!schema || !diffgram) {
    problems.push("the DataSet lacks its xs:schema or diffgr:diffgram");
    return;
  }
  const table = childNamed(
    childNamed(childNamed(childNamed(schema, XS, "element"), XS, "complexType"), XS, "choice"),
    XS,
    "element",
  );
  const sequence = childNamed(childNamed(table, XS, "complexType"), XS, "sequence");
  const columns = new Map<string, RefType>();
  for (const column of sequence?.children ?? []) {
    const name = column.attrs.find((a) => a.local === "name")?.value ?? "";
    const type = column.attrs.find((a) => a.local === "type")?.value ?? "";
    columns.set(name, SCHEMA_TYPES[type.slice(type.lastIndexOf("}") + 1)] ?? "string");
  }
  for (const c of result.columns) {
    if (c.name !== undefined && !columns.has(c.name))
      problems.push(`the DataSet schema has no column ${c.name}`);
  }
  for (const data of diffgram.children.filter((c) => c.ns !== DIFFGR)) {
    for (const row of data.children) {
      for (const cell of row.children) {
        const type = columns.get(cell.local);
        if (type === undefined) problems.push(`row cell ${cell.local} is not a column of the schema`);
        else convert(type, cell.text, `column ${cell.local}`, problems);
      }
    }
  }
}

function checkResult(op: RefOperation, holder: XNode, problems: string[]): void {
  const result = op.result;
  switch (result.kind) {
    case "scalar":
      convert(result.type, holder.text, `${op.name} result`, problems);
      return;
    case "list":
      for (const item of holder.children) {
        if (item.local !== result.record || item.ns !== op.namespace)
          problems.push(`unexpected element {${item.ns}}${item.local} in the list`);
        else checkRecord(item, result.record, result.fields, op.namespace, problems);
      }
      return;
    case "record":
      checkRecord(holder, result.record, result.fields, op.namespace, problems);
      return;
    case "dataSet":
      checkDataSet(holder, result, problems);
      return;
  }
}

function httpRootName(result: RefResult): string {
  if (result.kind === "scalar") return result.type;
  if (result.kind === "list") return `ArrayOf${result.record}`;
  return result.kind === "record" ? result.record : "DataSet";
}

function sameContentType(got: string | undefined, want: string): boolean {
  return (got ?? "").toLowerCase().replace(/\s+/g, "") === want.replace(/\s+/g, "");
}

function soapShape(
  op: RefOperation,
  binding: "soap11" | "soap12",
  answer: ReferenceAnswer,
  problems: string[],
): string {
  const env = envelopeNs(binding);
  const root = readTree(answer.body);
  const first = childNamed(root, env, "Body")?.children[0];
  if (root.local !== "Envelope" || root.ns !== env || !first) {
    problems.push(`not a ${binding} envelope with a Body`);
    return "";
  }
  if (first.local === "Fault" && first.ns === env) {
    const code =
      binding === "soap11"
        ? childNamed(first, "", "faultcode")?.text
        : childNamed(childNamed(first, env, "Code"), env, "Value")?.text;
    const reason =
      binding === "soap11"
        ? childNamed(first, "", "faultstring")?.text
        : childNamed(childNamed(first, env, "Reason"), env, "Text")?.text;
    const side = (code ?? "").slice((code ?? "").indexOf(":") + 1);
    if (answer.status !== 500) problems.push(`a fault with status ${answer.status}, want 500`);
    if (reason === undefined) problems.push("the fault has no reason");
    if (side !== "Server" && side !== "Receiver")
      problems.push(`a ${side || "codeless"} fault refused a valid request: ${reason ?? ""}`);
    return `answered, fault: ${side}: ${(reason ?? "").slice(0, 80)}`;
  }
  if (answer.status !== 200) problems.push(`status ${answer.status}, want 200`);
  if (first.local !== `${op.name}Response` || first.ns !== op.namespace)
    problems.push(`the Body holds ${first.local}, not ${op.name}Response`);
  const holder = childNamed(first, op.namespace, `${op.name}Result`);
  if (holder) checkResult(op, holder, problems);
  else if (op.result.kind !== "list") problems.push(`no ${op.name}Result`);
  return "answered";
}

function httpShape(
  op: RefOperation,
  answer: ReferenceAnswer,
  refusals: ReadonlySet<string>,
  problems: string[],
): string {
  if (answer.status === 500 && sameContentType(answer.headers["content-type"], "text/plain; charset=utf-8")) {
    const type = /^([A-Za-z_][\w.]*): /.exec(answer.body)?.[1];
    const code = answer.headers["x-error-code"];
    // An endpoint that sends an error code (ours) writes `<ExceptionType>: <message>`; a legacy host with
    // customErrors On writes the message alone (docs/wire.md §4).
    if (!type && code !== undefined) problems.push("a 500 answer that is not `<ExceptionType>: <message>`");
    if (code !== undefined && refusals.has(code)) problems.push(`the valid request was refused: ${code}`);
    return `answered, fault: ${answer.body.split("\n")[0].slice(0, 80)}`;
  }
  if (answer.status !== 200) {
    problems.push(`status ${answer.status}, want 200 or a 500 text`);
    return "";
  }
  const root = readTree(answer.body);
  const want = httpRootName(op.result);
  if (root.local !== want || root.ns !== op.namespace)
    problems.push(`root {${root.ns}}${root.local}, want {${op.namespace}}${want}`);
  else checkResult(op, root, problems);
  return "answered";
}

/**
 * `refusals`: error codes that mean the request itself was refused (a valid call must not get them).
 */
export function checkAnswerShape(
  op: RefOperation,
  binding: RefBinding,
  answer: ReferenceAnswer,
  refusals: ReadonlySet<string>,
): ShapeVerdict {
  const problems: string[] = [];
  let note = "";
  try {
    if (binding === "soap11" || binding === "soap12") {
      if (!sameContentType(answer.headers["content-type"], contentTypeOf(binding, "fault"))) {
        problems.push(
          `content type ${answer.headers["content-type"] ?? "(none)"}, want ${contentTypeOf(binding, "fault")}`,
        );
      }
      note = soapShape(op, binding, answer, problems);
    } else {
      if (
        answer.status === 200 &&
        !sameContentType(answer.headers["content-type"], "text/xml; charset=utf-8")
      ) {
        problems.push(
          `content type ${answer.headers["content-type"] ?? "(none)"}, want text/xml; charset=utf-8`,
        );
      }
      note = httpShape(op, answer, refusals, problems);
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  return { problems, note };
}
