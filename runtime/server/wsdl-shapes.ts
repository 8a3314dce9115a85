// The parts of the published WSDL that operations with a SOAP shape (model.ts SoapShapeModel, .NET's
// [SoapDocumentMethod]) change, as ASMX writes them (docs/asmx-evidence/document-methods.md): a bare
// operation's messages name one global element per parameter (declared once, where first used) and one for
// the result and each out parameter; an operation with its own namespace has its request and response
// elements in a schema of that namespace, after the service's. wsdl.ts writes the rest and calls these.

import {
  isBare,
  requestElementOf,
  responseElementOf,
  resultElementOf,
  type OperationModel,
  type ResultModel,
  type ServiceModel,
  type TypeModel,
  wireName,
} from "../model.js";
import { escapeMarkup, XML_REFERENCES } from "./markup.js";

const xml = (text: string): string => escapeMarkup(text, XML_REFERENCES);

/** What wsdl.ts lends: a sequence member's element, a result's type, and the named types a type needs. */
export interface WsdlWriters {
  memberElement(name: string, type: TypeModel, nullable: boolean | undefined, indent: string): string;
  resultType(result: ResultModel): TypeModel | undefined;
  definitions(type: TypeModel, out: string[]): void;
}

export class SoapShapes {
  /** The schema text of each namespace of its own that some operation has, by namespace, in first-use order. */
  readonly schemas: Map<string, string[]> = new Map();
  private readonly prefixes = new Map<string, string>();
  /** Global elements written so far for bare messages, by `{namespace}name`. */
  private readonly declared = new Set<string>();

  private readonly writers: WsdlWriters;

  constructor(model: ServiceModel, writers: WsdlWriters) {
    this.writers = writers;
    for (const op of model.operations) {
      const ns = op.soap?.namespace;
      if (ns === undefined || ns === model.namespace || this.prefixes.has(ns)) continue;
      // s1 and s2 may be .NET's own types' and the HTTP abstract types' prefixes (wsdl.ts).
      this.prefixes.set(ns, `s${this.prefixes.size + 3}`);
      this.schemas.set(ns, []);
    }
  }

  /** The definitions element's declarations of the operations' own namespaces (` xmlns:s3="…"`). */
  declarations(): string {
    return [...this.prefixes].map(([ns, prefix]) => ` xmlns:${prefix}="${xml(ns)}"`).join("");
  }

  /** The schema an operation's elements go to when it has a namespace of its own; else undefined. */
  schemaOf(op: OperationModel): string[] | undefined {
    const ns = op.soap?.namespace;
    return ns === undefined ? undefined : this.schemas.get(ns);
  }

  /** A QName of the operation's namespace: `tns:name`, or its own prefix's. */
  private ref(op: OperationModel, name: string): string {
    const ns = op.soap?.namespace;
    const prefix = ns === undefined ? undefined : this.prefixes.get(ns);
    return `${prefix ?? "tns"}:${xml(name)}`;
  }

  /**
   * A bare operation's global elements (each parameter's, then the result's and each out parameter's, those
   * already written skipped), each followed by the named types it needs, in the service's schema `out`.
   */
  bareElements(op: OperationModel, out: string[]): void {
    const target = this.schemaOf(op) ?? out;
    const element = (name: string, type: TypeModel, nullable: boolean | undefined): void => {
      const key = `{${op.soap?.namespace ?? ""}}${name}`;
      if (this.declared.has(key)) return;
      this.declared.add(key);
      // A global element: the sequence member's without minOccurs and maxOccurs.
      const member = this.writers.memberElement(name, type, nullable, "      ");
      target.push(`      ${member.replace(/ minOccurs="[01]" maxOccurs="1"/, "")}\n`);
      this.writers.definitions(type, out);
    };
    for (const p of op.params) element(p.name, p.type, p.nullable);
    const result = op.result;
    if (result.kind === "response") {
      for (const f of result.record.fields) element(f.name, f.type, f.nullable);
      return;
    }
    const type = this.writers.resultType(result);
    if (type !== undefined)
      element(
        resultElementOf(op),
        type,
        (result.kind === "scalar" || result.kind === "enum") && result.nullable === true,
      );
  }

  /**
   * The SOAP messages of an operation with a shape (named `{Op}{suffix}In` and `Out`): its parts (bare) or
   * its renamed elements (wrapped).
   */
  messages(op: OperationModel, out: string[], suffix: string): void {
    const name = xml(wireName(op));
    const message = (suffix: string, parts: readonly string[]): void => {
      if (parts.length === 0) {
        out.push(`  <wsdl:message name="${name}${suffix}" />\n`);
        return;
      }
      out.push(`  <wsdl:message name="${name}${suffix}">\n`, ...parts, "  </wsdl:message>\n");
    };
    const part = (partName: string, element: string): string =>
      `    <wsdl:part name="${xml(partName)}" element="${this.ref(op, element)}" />\n`;
    if (!isBare(op)) {
      message(`${suffix}In`, [part("parameters", requestElementOf(op))]);
      if (op.result.kind !== "oneWay") message(`${suffix}Out`, [part("parameters", responseElementOf(op))]);
      return;
    }
    message(
      `${suffix}In`,
      op.params.map((p) => part(p.name, p.name)),
    );
    if (op.result.kind === "oneWay") return;
    // The result's part is named {Op}Result (Op its wire name) whatever its element's name; the out
    // parameters' as they are.
    const resultElement = resultElementOf(op);
    const fields =
      op.result.kind === "response"
        ? op.result.record.fields.map((f) => f.name)
        : op.result.kind === "void"
          ? []
          : [resultElement];
    message(
      `${suffix}Out`,
      fields.map((f) => (f === resultElement ? part(`${wireName(op)}Result`, f) : part(f, f))),
    );
  }
}
