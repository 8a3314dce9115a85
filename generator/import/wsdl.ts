// Reads the WSDL an ASMX host publishes (wsdl.exe / XmlSerializer shape, document/literal, wrapped) into
// a spec object in the format of spec/service.schema.json (issue 11's contract), plus warnings for what
// was dropped. Anything the spec cannot describe is an ImportError naming the WSDL element and line.
//
// Every walk here is a loop over the tree's lists (no recursion on input); record nesting is followed
// with a work list and the record cycle check is an iterative depth-first search.

import { typeScriptTypeName } from "../reserved-names.js";
import { operationTypeNames, RESERVED_TYPE_NAMES } from "../type-names.js";
import { attr, deepText, lookupPrefix, readTree, XmlReadError, type Node } from "./xml-tree.js";

export const WSDL_NS = "http://schemas.xmlsoap.org/wsdl/";
export const XS_NS = "http://www.w3.org/2001/XMLSchema";
const SOAP_NS = "http://schemas.xmlsoap.org/wsdl/soap/";
const SOAP12_NS = "http://schemas.xmlsoap.org/wsdl/soap12/";
const HTTP_NS = "http://schemas.xmlsoap.org/wsdl/http/";
const MIME_NS = "http://schemas.xmlsoap.org/wsdl/mime/";
export const MSTYPES_NS = "http://microsoft.com/wsdl/types/";
const DIFFGRAM_NS = "urn:schemas-microsoft-com:xml-diffgram-v1";

/** Placeholder for docs the WSDL does not carry (the spec requires one everywhere). */
const PLACEHOLDER_DOC = "Imported; describe it.";

export type BindingKind = "soap11" | "soap12" | "httpGet" | "httpPost";
const BINDING_ORDER: readonly BindingKind[] = ["soap11", "soap12", "httpGet", "httpPost"];

export interface SpecParam {
  name: string;
  type: string;
  nullable?: true;
  /** An array's item element, when not its type's name ([XmlArrayItem]). */
  itemName?: string;
  /** An alternative of an xs:choice: the choice's name (Item, Item1, … as wsdl.exe names the member). */
  choice?: string;
  /** An out parameter (only in the response) or a ref one (inOut: in the request and the response). */
  direction?: "out" | "inOut";
  doc: string;
}
export interface SpecResult {
  type?: string;
  nullable?: true;
  /** An untyped DataSet: the WSDL never describes a DataSet's tables and columns, its answers do. */
  kind?: "dataSet";
  /** A DataTable rather than a DataSet. */
  dataTable?: true;
  doc: string;
}
export interface SpecHeader {
  record: string;
  direction?: "out" | "inOut";
}
export interface SpecOperation {
  name: string;
  /** Its name on the wire when that is no identifier (a MessageName with a dot); see operationNames. */
  messageName?: string;
  doc: string;
  params?: SpecParam[];
  headers?: SpecHeader[];
  result?: SpecResult;
  oneWay?: true;
  soap?: SpecSoapShape;
}
/** How an operation's SOAP messages differ from ASMX's defaults (the spec's `soap`). */
export interface SpecSoapShape {
  parameterStyle?: "bare";
  requestElement?: string;
  responseElement?: string;
  resultElement?: string;
  namespace?: string;
  action?: string;
}
export interface SpecField {
  name: string;
  type: string;
  nullable?: true;
  /** An array's item element, when not its type's name ([XmlArrayItem]). */
  itemName?: string;
  /** An alternative of an xs:choice: the choice's name. */
  choice?: string;
}
export interface SpecRecordOut {
  doc: string;
  base?: string;
  abstract?: true;
  /** The items of a repeated xs:choice (ArrayOfChoice1): one of the fields each. */
  choice?: true;
  fields: SpecField[];
}
export interface ImportedSpec {
  service: {
    name: string;
    namespace: string;
    endpoint: string;
    doc: string;
    credentials?: SpecParam[];
    bindings: BindingKind[];
  };
  enums?: Record<string, { doc: string; values: string[]; flags?: true }>;
  records?: Record<string, SpecRecordOut>;
  groups: { name: string; title: string; operations: SpecOperation[] }[];
}

export interface ImportOptions {
  /** Shown in messages and in the service's placeholder doc: a file name or URL. */
  readonly source: string;
  /** Parameters every operation takes first, moved into service.credentials, in this order. */
  readonly credentials?: readonly string[] | undefined;
  readonly maxDepth?: number | undefined;
  readonly maxElements?: number | undefined;
}

export interface ImportResult {
  readonly spec: ImportedSpec;
  readonly warnings: readonly string[];
}

export class ImportError extends Error {
  override name = "ImportError";
  constructor(
    message: string,
    /** The WSDL line the message is about, 0 when none. */
    readonly line = 0,
  ) {
    super(message);
  }
}

/** The ImportError that gathers the problems (not itself one of them). */
class Refusal extends ImportError {}

/** Deepest nesting an ASMX WSDL needs is about 10; the default leaves room without inviting abuse. */
const DEFAULT_IMPORT_MAX_DEPTH = 32;
const DEFAULT_IMPORT_MAX_ELEMENTS = 200_000;

const XS_SCALARS: ReadonlySet<string> = new Set([
  "string",
  "boolean",
  "float",
  "double",
  "decimal",
  "dateTime",
  "byte",
  "unsignedByte",
  "short",
  "unsignedShort",
  "int",
  "unsignedInt",
  "long",
  "unsignedLong",
  "base64Binary",
]);
/** Types whose absence is null on the wire (minOccurs="0"); the others are value types. */
const REFERENCE_SCALARS: ReadonlySet<string> = new Set(["string", "base64Binary"]);

/** The spec type of a parameter, result or field element. */
interface ElementType {
  readonly type: string;
  readonly nullable: boolean;
  readonly itemName?: string;
  /** A value type (always sent unless nullable). */
  readonly valueType?: true;
}

interface QName {
  readonly ns: string;
  readonly local: string;
}

/** A resolved type: the spec's type text, and whether .NET sees it as a value type. */
interface TypeRef {
  readonly type: string;
  readonly valueType: boolean;
  readonly array: boolean;
  /** An array's item element, when not its type's name ([XmlArrayItem]). */
  readonly itemName?: string;
}

export function importWsdl(text: string, options: ImportOptions): ImportResult {
  return new Importer(text, options).run();
}

class Importer {
  private readonly warnings: string[] = [];
  /** Operations a SOAP binding declares style="rpc", with their soap:operation. */
  private readonly rpcOperations = new Map<string, Node>();
  /** Operations whose soap:body is not use="literal", with that soap:body. */
  private readonly encodedOperations = new Map<string, Node>();
  /** Everything refused so far, reported together at the end (each once, in line order). */
  private readonly problems = new Map<string, number>();
  private readonly source: string;
  private root!: Node;
  private tns = "";
  private readonly elements = new Map<string, Node>();
  private readonly complexTypes = new Map<string, Node>();
  private readonly simpleTypes = new Map<string, Node>();
  /** Records and enums the operations use, filled as types are resolved. */
  private readonly usedRecords = new Set<string>();
  private readonly usedEnums = new Set<string>();
  private readonly recordQueue: string[] = [];
  private readonly records = new Map<string, SpecRecordOut>();
  private readonly enums = new Map<string, { doc: string; values: string[]; flags?: true }>();
  private readonly arrays = new Map<string, TypeRef>();
  /** complexTypes found to be records, so each is looked at once however often it is used. */
  private readonly notArrays = new Set<string>();
  /** Per operation, the soap:header lines of the first SOAP binding (soap:header in input or output). */
  private readonly soapHeaders = new Map<string, { node: Node; output: boolean }[]>();
  /** The complexTypes used as SOAP headers: they end with SoapHeader's xs:anyAttribute. */
  private readonly headerTypes = new Set<string>();
  /** Every portType operation's name on the wire (its input's name, else its own), and the names given. */
  private readonly operationWireNames = new Set<string>();
  private readonly operationNamesGiven = new Set<string>();
  /** The alternatives of the xs:choices in sequences, with their choice's name. */
  private readonly choiceOf = new Map<Node, string>();
  /** The item records of repeated choices (ArrayOfChoice1 → Choice1), in the order met. */
  private readonly choiceRecords = new Map<string, { node: Node; record: SpecRecordOut }>();
  /** Global elements of schemas for other namespaces (request and response elements only), by `{ns}local`. */
  private readonly otherElements = new Map<string, Node>();
  /** Per operation (its wire name), the SOAP action the first SOAP binding gives it when not the derived one. */
  private readonly customActions = new Map<string, string>();
  /** Per operation and direction (`Op in`, `Op out`), the parts soap:body names (its parts= attribute). */
  private readonly bodyParts = new Map<string, readonly string[]>();

  constructor(
    private text: string,
    private readonly options: ImportOptions,
  ) {
    this.source = options.source;
  }

  run(): ImportResult {
    // A WSDL stored with blank lines before its XML declaration (seen in the corpus): the declaration is
    // moved to the start, the blank lines after it, so every line keeps its number.
    const late = /^([ \t\r\n]+)(<\?xml[^>]*\?>)/.exec(this.text);
    if (late !== null) {
      this.text = `${late[2]}${late[1]}${this.text.slice(late[0].length)}`;
      this.warnings.push(
        `${this.source}: the XML declaration is not at the start of the file; read as if it were`,
      );
    }
    let result: ImportResult | undefined;
    try {
      result = this.runAll();
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      if (!(e instanceof Refusal)) this.problem(e);
    }
    if (this.problems.size > 0 || result === undefined) throw this.refusal();
    return result;
  }

  /** One ImportError holding every problem found, in line order: one line, or a count and a list. */
  private refusal(): ImportError {
    const all = [...this.problems].sort((a, b) => a[1] - b[1]).map(([m]) => m);
    if (all.length === 1) return new Refusal(all[0]!);
    return new Refusal(
      `${this.source}: ${all.length} constructs the spec cannot describe:\n${all.map((m) => `  ${m}`).join("\n")}`,
    );
  }

  /**
   * One problem for every operation refused for the same attribute (an rpc/encoded service has it on
   * every operation): the first one's line, the count and the first names. Those operations are left out.
   */
  private foldedProblem(ops: ReadonlyMap<string, Node>, attrName: string, why: string): void {
    if (ops.size === 0) return;
    const [first, at] = [...ops][0]!;
    const value = attr(at, attrName);
    const names = [...ops.keys()];
    this.problem(
      this.error(
        at,
        ops.size === 1
          ? `operation ${first} is ${attrName}="${value}": ${why}`
          : `${names.length} operations are ${attrName}="${value}" (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}): ${why}; they are left out of this report`,
      ),
    );
  }

  /** Records a refusal and goes on with the next construct. */
  private problem(e: unknown): void {
    if (!(e instanceof ImportError)) throw e;
    if (!this.problems.has(e.message)) this.problems.set(e.message, e.line);
  }

  /** Runs `f`, recording its refusal instead of stopping; undefined when it refused. */
  private attempt<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      this.problem(e);
      return undefined;
    }
  }

  private runAll(): ImportResult {
    try {
      this.root = readTree(this.text, {
        maxDepth: this.options.maxDepth ?? DEFAULT_IMPORT_MAX_DEPTH,
        maxElements: this.options.maxElements ?? DEFAULT_IMPORT_MAX_ELEMENTS,
      });
    } catch (e) {
      if (e instanceof XmlReadError) throw new ImportError(`${this.source}: ${e.message}`);
      throw e;
    }
    const root = this.root;
    if (root.ns !== WSDL_NS || root.local !== "definitions") {
      throw this.error(
        root,
        `the root element is not wsdl:definitions (namespace ${WSDL_NS}); not a WSDL 1.1 document`,
      );
    }
    const tns = attr(root, "targetNamespace");
    if (tns === undefined || tns === "") throw this.error(root, "wsdl:definitions has no targetNamespace");
    this.tns = tns;

    const messages = new Map<string, Node>();
    const portTypes = new Map<string, Node>();
    const bindings = new Map<string, Node>();
    const services: Node[] = [];
    for (const child of root.children) {
      if (child.ns !== WSDL_NS) {
        this.warn(child, "an extension element at the top level is ignored");
        continue;
      }
      switch (child.local) {
        case "types":
          this.readTypes(child);
          break;
        case "message":
          this.attempt(() => this.named(child, messages));
          break;
        case "portType":
          this.attempt(() => this.named(child, portTypes));
          break;
        case "binding":
          this.attempt(() => this.named(child, bindings));
          break;
        case "service":
          services.push(child);
          break;
        case "documentation":
          break;
        case "import":
          this.problem(
            this.error(
              child,
              "wsdl:import is not supported: import a WSDL that holds all its parts in one document",
            ),
          );
          break;
        default:
          this.warn(child, "unknown WSDL element ignored");
      }
    }

    // The service, its ports and the bindings they use.
    if (services.length === 0) throw this.error(root, "the WSDL has no wsdl:service");
    const service = services[0]!;
    if (services.length > 1)
      this.warn(services[1]!, "only the first wsdl:service is imported; the others are ignored");
    const serviceName = this.identifier(service, "name", "the service name");
    const kinds = new Map<BindingKind, { binding: Node; port: Node }>();
    let endpoint: string | undefined;
    for (const port of service.children) {
      if (port.ns !== WSDL_NS || port.local !== "port") continue;
      const found = this.attempt(() => {
        const ref = this.qnameAttr(port, "binding");
        const binding = ref.ns === tns ? bindings.get(ref.local) : undefined;
        if (binding === undefined)
          throw this.error(port, `the port's binding ${ref.local} is not defined in this WSDL`);
        return { binding, kind: this.bindingKind(binding) };
      });
      if (found === undefined) continue;
      const { binding, kind } = found;
      if (kinds.has(kind)) {
        this.warn(port, `a second ${kind} port is ignored`);
        continue;
      }
      kinds.set(kind, { binding, port });
      for (const a of port.children) {
        if (a.local === "address" && (a.ns === SOAP_NS || a.ns === SOAP12_NS || a.ns === HTTP_NS)) {
          const location = attr(a, "location");
          if (location !== undefined && endpoint === undefined) endpoint = this.endpointOf(a, location);
        }
      }
    }
    const bindingKinds = BINDING_ORDER.filter((k) => kinds.has(k));
    const soap = kinds.get("soap11") ?? kinds.get("soap12");
    if (soap === undefined) {
      throw this.error(
        service,
        "the service has no SOAP 1.1 or SOAP 1.2 port: the HTTP GET/POST messages carry no parameter types, so there is nothing to import the operations from",
      );
    }
    if (endpoint === undefined) {
      endpoint = `${serviceName}.asmx`;
      this.warn(service, `no port has an address; the endpoint is taken to be ${endpoint}`);
    }

    const portTypeRef = this.qnameAttr(soap.binding, "type");
    const portType = portTypeRef.ns === tns ? portTypes.get(portTypeRef.local) : undefined;
    if (portType === undefined)
      throw this.error(
        soap.binding,
        `the binding's portType ${portTypeRef.local} is not defined in this WSDL`,
      );
    const soap11 = kinds.get("soap11");
    const soap12 = kinds.get("soap12");
    if (soap11 !== undefined && soap12 !== undefined) {
      const other = this.qnameAttr(soap12.binding, "type");
      if (other.local !== portTypeRef.local) {
        this.warn(
          soap12.binding,
          `the SOAP 1.2 binding uses portType ${other.local}, not ${portTypeRef.local}; the operations are taken from ${portTypeRef.local}`,
        );
      }
    }
    for (const kind of ["soap11", "soap12"] as const) {
      const b = kinds.get(kind);
      if (b !== undefined) this.attempt(() => this.checkSoapBinding(b.binding, kind, b === soap));
    }

    this.foldedProblem(this.rpcOperations, "style", "only document/literal is supported");
    this.foldedProblem(this.encodedOperations, "use", "rpc/encoded messages are not supported, only literal");

    // Operations, in portType order.
    const operations: SpecOperation[] = [];
    const seen = new Set<string>();
    this.collectWireNames(portType);
    for (const op of portType.children) {
      if (op.ns !== WSDL_NS || op.local !== "operation") {
        if (!(op.ns === WSDL_NS && op.local === "documentation"))
          this.warn(op, "ignored inside wsdl:portType");
        continue;
      }
      const opName = attr(op, "name") ?? "";
      if (this.rpcOperations.has(opName) || this.encodedOperations.has(opName)) continue;
      const imported = this.attempt(() => {
        this.identifier(op, "name", "an operation name");
        const imported = this.operation(op, messages);
        if (seen.has(imported.name)) {
          throw this.error(
            op,
            `operation ${imported.name} appears twice${imported.name === opName ? " (an overload without a MessageName)" : ""}`,
          );
        }
        seen.add(imported.name);
        const headers = this.headersOf(imported.messageName ?? imported.name, messages);
        if (headers.length > 0) imported.headers = headers;
        return imported;
      });
      if (imported !== undefined) operations.push(imported);
    }
    if (operations.length === 0 && this.problems.size === 0)
      throw this.error(portType, "the portType has no operations");
    for (const kind of ["httpGet", "httpPost"] as const) {
      const b = kinds.get(kind);
      if (b !== undefined) this.checkHttpBinding(b.binding, kind, operations);
    }

    this.resolveRecords();
    this.attempt(() => this.checkRecordCycles());
    // What follows needs every operation and record: stop here when some were refused.
    if (this.problems.size > 0) throw this.refusal();

    const spec: ImportedSpec = {
      service: {
        name: serviceName,
        namespace: tns,
        endpoint,
        doc: docOf(service) ?? `Imported from ${this.source}; describe it.`,
        bindings: bindingKinds,
      },
      groups: [],
    };
    const credentials = this.moveCredentials(operations);
    if (credentials.length > 0) spec.service.credentials = credentials;
    // Records and enums in schema order, as the WSDL lists them.
    if (this.usedEnums.size > 0) {
      spec.enums = {};
      for (const name of this.simpleTypes.keys())
        if (this.usedEnums.has(name)) spec.enums[name] = this.enums.get(name)!;
    }
    if (this.usedRecords.size > 0 || this.choiceRecords.size > 0) {
      spec.records = {};
      for (const name of this.complexTypes.keys())
        if (this.usedRecords.has(name)) spec.records[name] = this.records.get(name)!;
      for (const [name, { record }] of this.choiceRecords) spec.records[name] = record;
    }
    for (const [name, node] of this.complexTypes) {
      if (this.usedRecords.has(name) || this.arrays.has(name)) continue;
      const extension = node.children
        .find((c) => c.ns === XS_NS && c.local === "complexContent")
        ?.children.find((c) => c.ns === XS_NS && c.local === "extension");
      const base = extension === undefined ? undefined : attr(extension, "base")?.replace(/^.*:/, "");
      this.warn(
        node,
        base !== undefined && this.usedRecords.has(base)
          ? `complexType ${name} extends ${base} but no operation names it (an [XmlInclude] type); left out: a ${base} value of this type (xsi:type="${name}") is refused at run time`
          : `complexType ${name} is not used by any operation; left out`,
      );
    }
    for (const [name, node] of this.simpleTypes) {
      if (!this.usedEnums.has(name))
        this.warn(node, `simpleType ${name} is not used by any operation; left out`);
    }
    spec.groups.push({ name: "operations", title: "Operations", operations });
    this.renameClashes(spec);
    return { spec, warnings: this.warnings };
  }

  /**
   * A record or enum whose TypeScript name is one the generator gives its own types (operation X's
   * `XParams`/`XResult`, a DataSet's `XRow`, `{Service}Credentials`, …) is renamed with `_` appended,
   * with a warning: its name in the WSDL we publish changes with it (and so the root element of its
   * answer on HTTP GET/POST), which a SOAP client never sees.
   */
  private renameClashes(spec: ImportedSpec): void {
    const generated = new Set<string>(RESERVED_TYPE_NAMES);
    generated.add(`${spec.service.name}Credentials`);
    for (const op of spec.groups.flatMap((g) => g.operations))
      for (const n of Object.values(operationTypeNames(op.name))) generated.add(n);
    const taken = new Set([
      ...generated,
      ...Object.keys(spec.records ?? {}),
      ...Object.keys(spec.enums ?? {}),
    ]);
    const renames = new Map<string, string>();
    for (const [kind, table] of [
      ["complexType", spec.records],
      ["simpleType", spec.enums],
    ] as const) {
      if (table === undefined) continue;
      for (const name of Object.keys(table)) {
        if (!generated.has(typeScriptTypeName(name))) continue;
        let renamed = `${name}_`;
        while (taken.has(renamed) || taken.has(typeScriptTypeName(renamed))) renamed = `${renamed}_`;
        taken.add(renamed);
        renames.set(name, renamed);
        const node =
          (kind === "complexType" ? this.complexTypes : this.simpleTypes).get(name) ??
          this.choiceRecords.get(name)!.node;
        this.warn(
          node,
          `${kind} ${name} is renamed ${renamed}: ${name} is the name of a type the generator makes (${name.endsWith("Result") ? "an operation's result" : name.endsWith("Params") ? "an operation's parameters" : "its own"}); the WSDL we publish (and the root element of its answers on HTTP GET/POST) says ${renamed}`,
        );
      }
    }
    if (renames.size === 0) return;
    const fix = (type: string): string => {
      const array = type.endsWith("[]");
      const item = array ? type.slice(0, -2) : type;
      const to = renames.get(item);
      return to === undefined ? type : `${to}${array ? "[]" : ""}`;
    };
    const rekey = <T>(table: Record<string, T> | undefined): Record<string, T> | undefined =>
      table === undefined
        ? undefined
        : Object.fromEntries(Object.entries(table).map(([k, v]) => [renames.get(k) ?? k, v]));
    spec.records = rekey(spec.records);
    spec.enums = rekey(spec.enums);
    if (spec.records === undefined) delete spec.records;
    if (spec.enums === undefined) delete spec.enums;
    for (const r of Object.values(spec.records ?? {})) {
      for (const f of r.fields) f.type = fix(f.type);
      if (r.base !== undefined) r.base = fix(r.base);
    }
    for (const p of spec.service.credentials ?? []) p.type = fix(p.type);
    for (const op of spec.groups.flatMap((g) => g.operations)) {
      for (const p of op.params ?? []) p.type = fix(p.type);
      if (op.result?.type !== undefined) op.result.type = fix(op.result.type);
    }
  }

  // ---- messages and operations -----------------------------------------------------------------

  /**
   * One portType operation. Its name in the spec is its name on the wire: the request element's, which is
   * the portType's name, or an overload's MessageName (`[WebMethod(MessageName = "AddDoubles")]`, which
   * ASMX writes as the input's name and uses for the elements, the SOAPAction and the HTTP path).
   */
  private operation(op: Node, messages: Map<string, Node>): SpecOperation {
    const method = this.requiredAttr(op, "name");
    let input: Node | undefined;
    let output: Node | undefined;
    for (const c of op.children) {
      if (c.ns !== WSDL_NS) continue;
      if (c.local === "input") input = c;
      else if (c.local === "output") output = c;
      else if (c.local === "fault")
        this.warn(c, `the fault of operation ${method} is dropped (ASMX reports faults as SOAP faults)`);
    }
    if (input === undefined)
      throw this.error(
        op,
        `operation ${method} has no wsdl:input (notification operations are not supported)`,
      );
    const messageName = attr(input, "name");
    // The operation's name in the bindings, which key its soap:body parts and its SOAP action.
    const wire = messageName ?? method;
    const request = this.requestMessage(input, messages, method, wire);
    let name = method;
    const shape: SpecSoapShape = {};
    if (request.bare) shape.parameterStyle = "bare";
    else if (request.name !== method) {
      // An overload's MessageName names its request element; any other name is its RequestElementName.
      if (messageName === request.name) name = this.wireNameOf(input, method);
      else
        shape.requestElement = this.elementName(
          request.node,
          request.name,
          `the request element of ${method}`,
        );
    }
    const result: SpecOperation = {
      ...this.operationNames(method, name, input),
      doc: docOf(op) ?? PLACEHOLDER_DOC,
    };

    const params: SpecParam[] = [];
    for (const el of request.bare
      ? request.elements
      : this.sequenceOf(request.node, `request element ${name}`)) {
      this.attempt(() => {
        const paramName = this.identifier(el, "name", `a parameter name of ${name}`);
        const t = this.elementType(el, `parameter ${paramName} of ${name}`, false);
        if (t === "dataSet" || t === "dataTable")
          throw this.error(
            el,
            `parameter ${paramName} of ${name} is a ${t === "dataSet" ? "DataSet" : "DataTable"}: DataSet parameters are not supported`,
          );
        const p: SpecParam = { name: paramName, type: t.type, doc: PLACEHOLDER_DOC };
        if (t.nullable) p.nullable = true;
        if (t.itemName !== undefined) p.itemName = t.itemName;
        this.choiceMember(el, t, p, `parameter ${paramName} of ${name}`);
        params.push(p);
      });
    }
    if (params.length > 0) result.params = params;

    const action = this.customActions.get(wire);
    if (action !== undefined && action !== this.derivedAction(name)) shape.action = action;
    if (request.ns !== this.tns) shape.namespace = request.ns;
    // (The response may add to the shape: its element's and its result's names.)
    if (output === undefined) {
      if (Object.keys(shape).length > 0) result.soap = shape;
      result.oneWay = true;
      return result;
    }
    const response = this.responseMessage(output, messages, name, { ...request, wire }, shape);
    if (Object.keys(shape).length > 0) result.soap = shape;
    const items = response.items;
    // The result element, unless void, then every out and ref parameter (ASMX writes them in that order).
    const first = items[0];
    const hasResult = response.hasResult;
    if (first !== undefined && hasResult) {
      const t = this.elementType(first, `result of ${name}`, true);
      if (t === "dataSet" || t === "dataTable") {
        if (items.length > 1)
          throw this.error(
            items[1]!,
            `${name} returns a ${t === "dataSet" ? "DataSet" : "DataTable"} and has out or ref parameters: not supported together`,
          );
        result.result = {
          kind: "dataSet",
          ...(t === "dataTable" ? { dataTable: true as const } : {}),
          doc: PLACEHOLDER_DOC,
        };
      } else {
        if (t.itemName !== undefined)
          throw this.error(
            first,
            `result of ${name}: an array whose items are named ${t.itemName}, not after their type ([XmlArrayItem] on a result), is not supported`,
          );
        result.result = {
          type: t.type,
          ...(t.nullable ? { nullable: true as const } : {}),
          doc: PLACEHOLDER_DOC,
        };
      }
    }
    this.answeredParams(name, items.slice(hasResult ? 1 : 0), params);
    if (params.length > 0) result.params = params;
    else delete result.params;
    return result;
  }

  /**
   * Out and ref parameters, from the response element's children after the result: one named as a request
   * parameter is a ref parameter (inOut), another an out parameter, placed in `params` just before the ref
   * parameter answered after it (at the end when none is), so that the spec's order gives both the
   * request's order and the response's.
   */
  private answeredParams(name: string, answered: readonly Node[], params: SpecParam[]): void {
    let last = -1;
    let pending: SpecParam[] = [];
    for (const el of answered) {
      this.attempt(() => {
        const paramName = this.identifier(el, "name", `an out or ref parameter name of ${name}`);
        const t = this.elementType(el, `out parameter ${paramName} of ${name}`, false);
        if (t === "dataSet" || t === "dataTable")
          throw this.error(el, `out parameter ${paramName} of ${name} is a DataSet: not supported`);
        const at = params.findIndex((p) => p.name === paramName);
        if (at < 0) {
          if (pending.some((p) => p.name === paramName))
            throw this.error(el, `out parameter ${paramName} of ${name} appears twice`);
          const p: SpecParam = { name: paramName, type: t.type, direction: "out", doc: PLACEHOLDER_DOC };
          if (t.nullable) p.nullable = true;
          if (t.itemName !== undefined) p.itemName = t.itemName;
          this.choiceMember(el, t, p, `out parameter ${paramName} of ${name}`);
          pending.push(p);
          return;
        }
        const param = params[at]!;
        if (
          param.type !== t.type ||
          param.itemName !== t.itemName ||
          (param.nullable === true) !== t.nullable ||
          param.direction !== undefined
        )
          throw this.error(
            el,
            `${paramName} of ${name} is answered as ${describe({ ...param, type: t.type, ...(t.nullable ? { nullable: true } : {}) })} but sent as ${describe(param)}: a ref parameter has one type`,
          );
        if (at < last)
          throw this.error(
            el,
            `ref parameter ${paramName} of ${name} is answered after ${params[last]!.name} but sent before it: the spec gives both in one order`,
          );
        param.direction = "inOut";
        params.splice(at, 0, ...pending);
        last = at + pending.length;
        pending = [];
      });
    }
    params.push(...pending);
  }

  // ---- bare and renamed messages ([SoapDocumentMethod]) --------------------------------------------

  /**
   * The body parts of a message: each part's name and its element's qualified name and declaration (in the
   * service's schema, or in a schema of another namespace holding request and response elements). Parts a
   * SOAP binding's soap:body leaves out (parts=, under `key`: the operation's name in the binding) are left
   * out.
   */
  private bodyPartsOf(
    io: Node,
    messages: Map<string, Node>,
    op: string,
    key: string,
  ): { part: Node; partName: string; el: QName; node: Node }[] {
    const ref = this.qnameAttr(io, "message");
    const message = ref.ns === this.tns ? messages.get(ref.local) : undefined;
    if (message === undefined)
      throw this.error(io, `message ${ref.local} of operation ${op} is not defined in this WSDL`);
    const listed = this.bodyParts.get(key);
    const parts = message.children.filter(
      (c) =>
        c.ns === WSDL_NS &&
        c.local === "part" &&
        (listed === undefined || listed.includes(attr(c, "name") ?? "")),
    );
    return parts.map((part) => {
      if (attr(part, "element") === undefined) {
        throw this.error(
          part,
          `part ${attr(part, "name") ?? ""} of message ${ref.local} has a type, not an element: rpc-style messages are not supported`,
        );
      }
      const el = this.qnameAttr(part, "element");
      const node =
        el.ns === this.tns ? this.elements.get(el.local) : this.otherElements.get(`{${el.ns}}${el.local}`);
      if (node === undefined)
        throw this.error(
          part,
          `element ${el.local} of message ${ref.local} is not declared in the service's schema`,
        );
      return { part, partName: attr(part, "name") ?? "", el, node };
    });
  }

  /**
   * Whether a message's parts are bare (ParameterStyle.Bare): anything but one part whose element is the
   * wrapper ASMX writes (named as the operation, or with the part named "parameters", and of an anonymous
   * complexType that is not an XML value's).
   */
  private isBareMessage(
    parts: readonly { partName: string; el: QName; node: Node }[],
    wrapperName: string,
  ): boolean {
    if (parts.length !== 1) return true;
    const { partName, el, node } = parts[0]!;
    if (el.local === wrapperName) return false;
    if (partName !== "parameters" || attr(node, "type") !== undefined) return true;
    const ct = node.children.find((c) => c.ns === XS_NS && c.local === "complexType");
    return ct === undefined || this.xmlType(ct) !== undefined;
  }

  /**
   * The request: its wrapper element, or (bare) each parameter's element; and their namespace. `wire` is
   * the operation's name in the bindings (its input's name, else its own).
   */
  private requestMessage(
    input: Node,
    messages: Map<string, Node>,
    op: string,
    wire: string,
  ):
    | { readonly bare: false; readonly node: Node; readonly name: string; readonly ns: string }
    | { readonly bare: true; readonly elements: Node[]; readonly ns: string } {
    const parts = this.bodyPartsOf(input, messages, op, `${wire} in`);
    const ns = this.messageNs(parts, op);
    if (!this.isBareMessage(parts, wire)) {
      const { el, node } = parts[0]!;
      // (Its name is checked by the caller: a MessageName, or a RequestElementName.)
      return { bare: false, node, name: el.local, ns };
    }
    return { bare: true, elements: parts.map((p) => this.barePart(p, `a parameter of ${op}`)), ns };
  }

  /**
   * The response's items: the result element (when `hasResult`) and the out and ref parameters' elements,
   * from the response element (its name recorded in `shape` when not `{Op}Response`) or (bare) the parts,
   * the result's being the part named `{Op}Result` (its element's name recorded when another).
   */
  private responseMessage(
    output: Node,
    messages: Map<string, Node>,
    name: string,
    request: { readonly bare: boolean; readonly ns: string; readonly wire: string },
    shape: SpecSoapShape,
  ): { items: Node[]; hasResult: boolean } {
    const parts = this.bodyPartsOf(output, messages, name, `${request.wire} out`);
    const ns = this.messageNs(parts, name);
    if (parts.length > 0 && ns !== request.ns)
      throw this.error(
        parts[0]!.part,
        `the response of ${name} is in namespace ${ns} but its request in ${request.ns}: one namespace for both is supported`,
      );
    if (!request.bare) {
      if (this.isBareMessage(parts, `${name}Response`))
        throw this.error(
          parts[0]?.part ?? output,
          `the request of ${name} is wrapped but its response is bare: not supported`,
        );
      const { el, node } = parts[0]!;
      const element = this.elementName(node, el.local, `the response element of ${name}`);
      if (element !== `${name}Response`) shape.responseElement = element;
      const items = this.sequenceOf(node, `response element ${element}`);
      return { items, hasResult: items[0] !== undefined && attr(items[0], "name") === `${name}Result` };
    }
    const resultPart = parts.find((p) => p.partName === `${name}Result`);
    const items: Node[] = [];
    if (resultPart !== undefined) {
      const element = this.elementName(resultPart.node, resultPart.el.local, `the result element of ${name}`);
      if (element !== `${name}Result`) shape.resultElement = element;
      items.push(resultPart.node);
    }
    for (const p of parts) if (p !== resultPart) items.push(this.barePart(p, `an out parameter of ${name}`));
    return { items, hasResult: resultPart !== undefined };
  }

  /** A bare parameter's element: named as its part (the spec names the element after the parameter). */
  private barePart(p: { part: Node; partName: string; el: QName; node: Node }, what: string): Node {
    if (p.partName !== p.el.local)
      throw this.error(
        p.part,
        `${what} is part ${p.partName} whose element is named ${p.el.local}: a bare parameter's element must be named as the parameter`,
      );
    return p.node;
  }

  /** The one namespace of a message's elements (the service's when it has none). */
  private messageNs(parts: readonly { part: Node; el: QName }[], op: string): string {
    const ns = parts[0]?.el.ns ?? this.tns;
    const other = parts.find((p) => p.el.ns !== ns);
    if (other !== undefined)
      throw this.error(
        other.part,
        `the message parts of ${op} are in two namespaces (${ns}, ${other.el.ns}): not supported`,
      );
    return ns;
  }

  /** The SOAP action ASMX derives from an operation's name on the wire: the namespace, `/`, the name. */
  private derivedAction(wire: string): string {
    return this.tns.endsWith("/") ? `${this.tns}${wire}` : `${this.tns}/${wire}`;
  }

  /** A request, response or result element's name, which the spec holds as an XML name (ASCII). */
  private elementName(node: Node, name: string, what: string): string {
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name))
      throw this.error(node, `${what}, "${clip(name)}", is not an XML name the spec can hold (ASCII)`);
    return name;
  }

  /** The child elements of a wrapper element's anonymous complexType (none for `<s:complexType />`). */
  private sequenceOf(wrapper: Node, what: string): Node[] {
    const ct = this.onlyChildren(wrapper, what).find((c) => c.local === "complexType");
    if (ct === undefined) {
      throw this.error(
        wrapper,
        `${what} has no anonymous complexType: a document/literal wrapped element needs one`,
      );
    }
    return this.particles(ct, what);
  }

  /** Schema children other than annotations; refuses anything not in XS. */
  private onlyChildren(node: Node, what: string): Node[] {
    const out: Node[] = [];
    for (const c of node.children) {
      if (c.ns !== XS_NS) throw this.error(c, `unexpected element inside ${what}`);
      if (c.local !== "annotation") out.push(c);
    }
    return out;
  }

  /** The xs:element children of a complexType holding nothing but one xs:sequence (or nothing). */
  private particles(ct: Node, what: string, header = false, allowAbstract = false): Node[] {
    for (const flag of allowAbstract ? ["mixed"] : ["mixed", "abstract"]) {
      if (attr(ct, flag) === "true")
        throw this.error(ct, `${what}: a complexType with ${flag}="true" is not supported`);
    }
    const kids = this.onlyChildren(ct, what);
    // A SOAP header's type ends with SoapHeader's own attributes (mustUnderstand, actor...): not its data.
    if (header && kids.at(-1)?.local === "anyAttribute") kids.pop();
    if (kids.length === 0) return [];
    const first = kids[0]!;
    if (kids.length > 1 || first.local !== "sequence") {
      const odd = kids.find((k) => k.local !== "sequence") ?? kids[1]!;
      throw this.error(odd, `${what}: ${this.unsupported(odd.local)}`);
    }
    return this.sequenceParticles(first, what);
  }

  /**
   * The xs:element children of a sequence, the alternatives of an xs:choice in it included (each noted
   * in choiceOf with its choice's name: Item, Item1, … as wsdl.exe names the member that holds it).
   */
  private sequenceParticles(seq: Node, what: string): Node[] {
    const elements: Node[] = [];
    let choices = 0;
    for (const p of this.onlyChildren(seq, what)) {
      if (p.local === "choice") {
        const name = choices === 0 ? "Item" : `Item${choices}`;
        choices++;
        if ((attr(p, "maxOccurs") ?? "1") !== "1")
          throw this.error(
            p,
            `${what}: a repeated xs:choice (maxOccurs="${attr(p, "maxOccurs")}") inside a sequence is not supported, only as a whole ArrayOf type`,
          );
        for (const alternative of this.onlyChildren(p, what)) {
          if (alternative.local !== "element")
            throw this.error(
              alternative,
              `${what}: xs:choice may hold only xs:element here, not xs:${alternative.local}`,
            );
          this.choiceOf.set(alternative, name);
          elements.push(alternative);
        }
        continue;
      }
      if (p.local !== "element") throw this.error(p, `${what}: ${this.unsupported(p.local)}`);
      elements.push(p);
    }
    return elements;
  }

  /**
   * Marks `member` (a field or parameter) as an alternative of its xs:choice, if it is one: then it must
   * be of a reference type, absent whenever another alternative is present.
   */
  private choiceMember(el: Node, t: ElementType, member: { choice?: string }, what: string): void {
    const choice = this.choiceOf.get(el);
    if (choice === undefined) return;
    if (t.valueType === true)
      throw this.error(
        el,
        `${what} is an alternative of an xs:choice of the value type ${t.type}: not supported (an alternative must be able to be absent)`,
      );
    member.choice = choice;
  }

  private unsupported(local: string): string {
    switch (local) {
      case "choice":
        return "xs:choice is not supported here (only inside a sequence, or repeated as a whole ArrayOf type)";
      case "all":
        return "xs:all is not supported (the spec has sequences only)";
      case "attribute":
      case "attributeGroup":
      case "anyAttribute":
        return `XML attributes (xs:${local}) are not supported: the spec describes elements only`;
      case "complexContent":
      case "simpleContent":
        return `derived types (xs:${local}) are not supported`;
      case "any":
        return "xs:any (an XmlElement or XmlNode value) is not supported";
      case "group":
        return "xs:group is not supported";
      case "sequence":
        return "nested or repeated xs:sequence is not supported";
      default:
        return `xs:${local} is not supported here`;
    }
  }

  // ---- types -------------------------------------------------------------------------------------

  /**
   * The type of a parameter, result or field element: a spec type text with nullability, or
   * "dataSet" for the DataSet shape (allowDataSet only).
   */
  private elementType(el: Node, what: string, allowDataSet: boolean): ElementType | "dataSet" | "dataTable" {
    const maxOccurs = attr(el, "maxOccurs") ?? "1";
    if (maxOccurs !== "1") {
      throw this.error(
        el,
        `${what} repeats (maxOccurs="${maxOccurs}") outside an ArrayOf type: unwrapped arrays ([XmlElement] on an array) are not supported`,
      );
    }
    if (attr(el, "ref") !== undefined)
      throw this.error(el, `${what} is a reference (ref=) to another element: not supported`);
    const form = attr(el, "form");
    if (form !== undefined && form !== "qualified")
      throw this.error(el, `${what} is form="${form}": only qualified elements are supported`);
    for (const a of ["default", "fixed", "substitutionGroup"]) {
      if (attr(el, a) !== undefined) this.warn(el, `${what}: the ${a} attribute is dropped`);
    }
    const typeAttr = attr(el, "type");
    if (typeAttr === undefined) {
      const ct = this.onlyChildren(el, what).find((c) => c.local === "complexType");
      const dataSet = ct === undefined ? undefined : this.dataSetKind(ct);
      if (dataSet !== undefined) {
        if (!allowDataSet)
          throw this.error(
            el,
            `${what} is a ${dataSet === "dataSet" ? "DataSet" : "DataTable"}: only results may be DataSets or DataTables`,
          );
        return dataSet;
      }
      const xml = ct === undefined ? undefined : this.xmlType(ct);
      if (xml !== undefined) {
        // A global element (a bare parameter or result) has no minOccurs: nothing to say.
        if ((attr(el, "minOccurs") ?? "1") !== "0" && el.parent?.local !== "schema")
          this.warn(
            el,
            `${what} is an XML value with minOccurs="${attr(el, "minOccurs") ?? "1"}"; imported as optional (minOccurs="0"), as ASMX writes it`,
          );
        return { type: xml, nullable: false };
      }
      throw this.error(
        el,
        `${what} has an anonymous type: only named types, XML values (xs:any) and DataSet results are supported`,
      );
    }
    const t = this.typeRef(el, this.qnameAttr(el, "type"), what);
    const nillable = attr(el, "nillable") === "true";
    const minOccurs = attr(el, "minOccurs") ?? "1";
    if (t.valueType) {
      if (minOccurs === "0")
        this.warn(
          el,
          `${what} is an optional value type (minOccurs="0", a default value or a Specified member in .NET); imported as always sent`,
        );
      return { type: t.type, nullable: nillable, valueType: true };
    }
    if (nillable)
      this.warn(el, `${what} is nillable="true"; imported as an ordinary ${t.type} (absent when null)`);
    return { type: t.type, nullable: false, ...(t.itemName === undefined ? {} : { itemName: t.itemName }) };
  }

  /**
   * An XmlElement's anonymous type, `<s:complexType><s:sequence><s:any /></s:sequence></s:complexType>`
   * (xmlElement), or an XmlNode's, the same with mixed="true" (xmlNode); undefined for anything else.
   */
  private xmlType(ct: Node): "xmlElement" | "xmlNode" | undefined {
    const kids = ct.children.filter((c) => !(c.ns === XS_NS && c.local === "annotation"));
    if (kids.length !== 1 || kids[0]!.ns !== XS_NS || kids[0]!.local !== "sequence") return undefined;
    const seq = kids[0]!.children.filter((c) => !(c.ns === XS_NS && c.local === "annotation"));
    if (seq.length !== 1 || seq[0]!.ns !== XS_NS || seq[0]!.local !== "any") return undefined;
    const any = seq[0]!;
    if ((attr(any, "maxOccurs") ?? "1") !== "1" || (attr(any, "minOccurs") ?? "1") !== "1") return undefined;
    const ns = attr(any, "namespace");
    if (ns !== undefined && ns !== "##any") return undefined;
    return attr(ct, "mixed") === "true" ? "xmlNode" : "xmlElement";
  }

  /**
   * A DataSet's anonymous type, as .NET writes it,
   * `<s:complexType><s:sequence><s:element ref="s:schema"/><s:any/></s:sequence></s:complexType>`, or as
   * Mono does: a sequence (maxOccurs="unbounded") of two `s:any`, of the XML Schema namespace and of the
   * diffgram's; a DataTable's: the same two without maxOccurs on the sequence, the first maxOccurs="unbounded".
   */
  private dataSetKind(ct: Node): "dataSet" | "dataTable" | undefined {
    const kids = ct.children.filter((c) => !(c.ns === XS_NS && c.local === "annotation"));
    if (kids.length !== 1 || kids[0]!.ns !== XS_NS || kids[0]!.local !== "sequence") return undefined;
    const sequence = kids[0]!;
    const seq = sequence.children;
    if (seq.length !== 2) return undefined;
    const [schema, any] = [seq[0]!, seq[1]!];
    if (schema.ns !== XS_NS || any.ns !== XS_NS || any.local !== "any") return undefined;
    if (schema.local === "any") {
      if (attr(schema, "namespace") !== XS_NS || attr(any, "namespace") !== DIFFGRAM_NS) return undefined;
      return attr(sequence, "maxOccurs") === undefined && attr(schema, "maxOccurs") === "unbounded"
        ? "dataTable"
        : "dataSet";
    }
    if (schema.local !== "element") return undefined;
    const ref = attr(schema, "ref");
    if (ref === undefined) return undefined;
    const q = this.qname(schema, ref);
    return q.ns === XS_NS && q.local === "schema" ? "dataSet" : undefined;
  }

  private typeRef(at: Node, q: QName, what: string): TypeRef {
    if (q.ns === XS_NS) {
      if (XS_SCALARS.has(q.local))
        return { type: q.local, valueType: !REFERENCE_SCALARS.has(q.local), array: false };
      throw this.error(at, `${what} has type xs:${q.local}, which the spec has no type for`);
    }
    if (q.ns === MSTYPES_NS) {
      if (q.local === "guid" || q.local === "char") return { type: q.local, valueType: true, array: false };
      throw this.error(at, `${what} has type ${q.local} of ${MSTYPES_NS}, which the spec has no type for`);
    }
    if (q.ns !== this.tns)
      throw this.error(
        at,
        `${what} has type ${q.local} in namespace ${q.ns}, which this WSDL does not define`,
      );
    const simple = this.simpleTypes.get(q.local);
    if (simple !== undefined) {
      this.enumType(q.local, simple);
      return { type: q.local, valueType: true, array: false };
    }
    const complex = this.complexTypes.get(q.local);
    if (complex === undefined)
      throw this.error(at, `${what} has type ${q.local}, which the schema does not define`);
    const array = this.arrayType(q.local, complex);
    if (array !== undefined) return array;
    if (attr(complex, "abstract") === "true")
      throw this.error(
        at,
        `${what} is of the abstract type ${q.local}: its values are always of a derived type (xsi:type), which is not supported`,
      );
    if (!this.usedRecords.has(q.local)) {
      this.usedRecords.add(q.local);
      this.recordQueue.push(q.local);
    }
    return { type: q.local, valueType: false, array: false };
  }

  /** An ArrayOfX complexType: one element, minOccurs 0, maxOccurs unbounded. Undefined otherwise. */
  private arrayType(name: string, ct: Node): TypeRef | undefined {
    const known = this.arrays.get(name);
    if (known !== undefined) return known;
    if (this.notArrays.has(name)) return undefined;
    const what = `complexType ${name}`;
    const repeated = this.repeatedChoice(name, ct);
    if (repeated !== undefined) return repeated;
    const shape = this.recordShape(ct, what, this.headerTypes.has(name));
    const elements = shape.elements;
    if (
      shape.base !== undefined ||
      shape.abstract ||
      elements.length !== 1 ||
      (attr(elements[0]!, "maxOccurs") ?? "1") === "1"
    ) {
      this.notArrays.add(name);
      this.typeName(ct, "a record name");
      return undefined;
    }
    const item = elements[0]!;
    const maxOccurs = attr(item, "maxOccurs")!;
    if (maxOccurs !== "unbounded") this.warn(item, `${what}: maxOccurs="${maxOccurs}" imported as unbounded`);
    if ((attr(item, "minOccurs") ?? "1") !== "0")
      this.warn(
        item,
        `${what}: the array's items are minOccurs="${attr(item, "minOccurs") ?? "1"}"; imported as an ordinary array (minOccurs="0")`,
      );
    if (attr(item, "ref") !== undefined || attr(item, "type") === undefined) {
      throw this.error(item, `${what}: array items must have a named type`);
    }
    const itemName = attr(item, "name") ?? "";
    const q = this.qnameAttr(item, "type");
    const t = this.typeRef(item, q, `the items of ${name}`);
    if (t.array)
      throw this.error(
        item,
        `${what} is an array of arrays (${t.type}[]): arrays of arrays are not supported`,
      );
    // Items named other than their type ([XmlArrayItem("Value")]) keep their name (spec itemName).
    const renamed = itemName !== q.local;
    if (renamed) this.identifier(item, "name", `${what}: the item name`);
    const nillable = attr(item, "nillable") === "true";
    if (t.valueType && nillable)
      throw this.error(item, `${what}: nullable items (${q.local}?[]) are not supported`);
    const expected = `ArrayOf${q.local.charAt(0).toUpperCase()}${q.local.slice(1)}`;
    if (name !== expected && !renamed)
      this.warn(ct, `${what} is an array of ${t.type}; the generator names its type ${expected}`);
    if (renamed && !new RegExp(`^${expected}[1-9][0-9]*$`).test(name))
      this.warn(
        ct,
        `${what} is an array of ${t.type} items named ${itemName}; the generator names its type ${expected}1, 2, … in order of use (SOAP messages do not name it)`,
      );
    const ref: TypeRef = {
      type: `${t.type}[]`,
      valueType: false,
      array: true,
      ...(renamed ? { itemName } : {}),
    };
    this.arrays.set(name, ref);
    return ref;
  }

  /**
   * An array of a repeated choice, `<s:complexType name="ArrayOfChoice1"><s:choice minOccurs="0"
   * maxOccurs="unbounded">` of elements (.NET's several [XmlArrayItem(typeof(…))]): an array of a choice
   * record named after it (Choice1), whose fields are the alternatives. Undefined for another shape.
   */
  private repeatedChoice(name: string, ct: Node): TypeRef | undefined {
    const kids = ct.children.filter((c) => !(c.ns === XS_NS && c.local === "annotation"));
    const choice = kids[0];
    if (kids.length !== 1 || choice?.ns !== XS_NS || choice.local !== "choice") return undefined;
    if ((attr(choice, "maxOccurs") ?? "1") === "1") return undefined;
    const what = `complexType ${name}`;
    let recordName = name.startsWith("ArrayOf") && name.length > 7 ? name.slice(7) : `${name}Item`;
    while (this.complexTypes.has(recordName) || this.simpleTypes.has(recordName))
      recordName = `${recordName}_`;
    const fields: SpecField[] = [];
    for (const el of this.onlyChildren(choice, what)) {
      if (el.local !== "element")
        throw this.error(el, `${what}: xs:choice may hold only xs:element here, not xs:${el.local}`);
      const fieldName = this.identifier(el, "name", `an alternative of ${name}`);
      if ((attr(el, "maxOccurs") ?? "1") !== "1" || attr(el, "type") === undefined)
        throw this.error(el, `${what}: alternative ${fieldName} must be one element of a named type`);
      const t = this.typeRef(el, this.qnameAttr(el, "type"), `alternative ${fieldName} of ${name}`);
      if (t.valueType || t.array)
        throw this.error(
          el,
          `${what}: alternative ${fieldName} is ${t.type}: only records and strings are supported as items of a repeated choice`,
        );
      fields.push({ name: fieldName, type: t.type });
    }
    if (fields.length === 0) throw this.error(choice, `${what}: the xs:choice has no alternatives`);
    this.choiceRecords.set(recordName, {
      node: ct,
      record: { doc: `The items of ${name}: each holds one of its fields.`, choice: true, fields },
    });
    const ref: TypeRef = { type: `${recordName}[]`, valueType: false, array: true };
    this.arrays.set(name, ref);
    return ref;
  }

  private enumType(name: string, st: Node): void {
    if (this.usedEnums.has(name)) return;
    const what = `simpleType ${name}`;
    this.typeName(st, "an enum name");
    let kids = this.onlyChildren(st, what);
    // A [Flags] enum: a list of an anonymous enumeration (.NET's shape).
    const flags = this.flagsEnumeration(kids, what);
    if (flags !== undefined) kids = flags;
    const restriction = kids[0];
    if (kids.length !== 1 || restriction === undefined || restriction.local !== "restriction") {
      const odd = kids.find((k) => k.local !== "restriction") ?? st;
      throw this.error(
        odd,
        odd.local === "list"
          ? `${what} is a list of values ([Flags] enum): not supported`
          : `${what} is not an enumeration: not supported`,
      );
    }
    const base = this.qnameAttr(restriction, "base");
    if (base.ns !== XS_NS || base.local !== "string")
      throw this.error(
        restriction,
        `${what} restricts ${base.local}, not xs:string: only string enumerations are supported`,
      );
    const values: string[] = [];
    for (const f of this.onlyChildren(restriction, what)) {
      if (f.local !== "enumeration")
        throw this.error(f, `${what}: the facet xs:${f.local} is not supported (only xs:enumeration)`);
      const v = this.requiredAttr(f, "value");
      if (values.includes(v)) throw this.error(f, `${what}: the value ${v} appears twice`);
      values.push(v);
    }
    if (values.length === 0) throw this.error(restriction, `${what} has no values`);
    if (flags !== undefined)
      for (const v of values)
        if (/[ \t\r\n]/.test(v))
          throw this.error(restriction, `${what}: the flags value "${clip(v)}" holds a blank`);
    this.usedEnums.add(name);
    this.enums.set(name, {
      doc: docOf(st) ?? PLACEHOLDER_DOC,
      values,
      ...(flags === undefined ? {} : { flags: true as const }),
    });
  }

  /**
   * The children of the anonymous simpleType inside `<s:list><s:simpleType>…</s:simpleType></s:list>` (a
   * [Flags] enum as .NET writes it); undefined when the simpleType is not such a list.
   */
  private flagsEnumeration(kids: readonly Node[], what: string): Node[] | undefined {
    const list = kids[0];
    if (kids.length !== 1 || list === undefined || list.local !== "list") return undefined;
    if (attr(list, "itemType") !== undefined)
      throw this.error(
        list,
        `${what} is a list of a named type: only a list of its own enumeration (.NET's [Flags] enum) is supported`,
      );
    const inner = this.onlyChildren(list, what);
    if (inner.length !== 1 || inner[0]!.local !== "simpleType")
      throw this.error(list, `${what} is a list of something other than an enumeration: not supported`);
    return this.onlyChildren(inner[0]!, what);
  }

  /** Fields of every record used, following nested records with a work list. */
  private resolveRecords(): void {
    for (let k = 0; k < this.recordQueue.length; k++) {
      const name = this.recordQueue[k]!;
      const ct = this.complexTypes.get(name)!;
      const what = `complexType ${name}`;
      const fields: SpecField[] = [];
      const shape = this.attempt(() => this.recordShape(ct, what, this.headerTypes.has(name)));
      let base: string | undefined;
      if (shape?.base !== undefined) base = this.attempt(() => this.baseRecord(shape.base!, name));
      for (const el of shape?.elements ?? []) {
        this.attempt(() => {
          const fieldName = this.identifier(el, "name", `a field name of ${name}`);
          const t = this.elementType(el, `field ${fieldName} of ${name}`, false);
          if (t === "dataSet" || t === "dataTable")
            throw this.error(
              el,
              `field ${fieldName} of ${name} is a ${t === "dataSet" ? "DataSet" : "DataTable"}: not supported`,
            );
          const f: SpecField = { name: fieldName, type: t.type };
          if (t.nullable) f.nullable = true;
          if (t.itemName !== undefined) f.itemName = t.itemName;
          this.choiceMember(el, t, f, `field ${fieldName} of ${name}`);
          fields.push(f);
        });
      }
      this.records.set(name, {
        doc: docOf(ct) ?? PLACEHOLDER_DOC,
        ...(base === undefined ? {} : { base }),
        ...(shape?.abstract ? { abstract: true as const } : {}),
        fields,
      });
    }
  }

  /**
   * A complexType's content: the elements of its sequence, and for a derived type (`xs:complexContent` /
   * `xs:extension`, a .NET subclass) the extension's base and own elements; abstract="true" (an abstract
   * class) is reported, for the caller to allow only as a base.
   */
  private recordShape(
    ct: Node,
    what: string,
    header: boolean,
  ): { elements: Node[]; base?: Node; abstract: boolean } {
    const abstract = attr(ct, "abstract") === "true";
    const kids = this.onlyChildren(ct, what);
    const content = kids[0];
    if (kids.length !== 1 || content === undefined || content.local !== "complexContent") {
      return { elements: this.particles(ct, what, header, true), abstract };
    }
    if (attr(content, "mixed") === "true")
      throw this.error(content, `${what}: mixed content (mixed="true") is not supported`);
    const inner = this.onlyChildren(content, what);
    const extension = inner[0];
    if (inner.length !== 1 || extension === undefined || extension.local !== "extension") {
      const odd = inner.find((k) => k.local !== "extension") ?? content;
      throw this.error(
        odd,
        odd.local === "restriction"
          ? `${what}: a derived type by restriction (xs:restriction) is not supported, only by extension`
          : `${what}: xs:complexContent must hold one xs:extension`,
      );
    }
    const body = this.onlyChildren(extension, what);
    if (body.length === 0) return { elements: [], base: extension, abstract };
    const seq = body[0]!;
    if (body.length > 1 || seq.local !== "sequence") {
      const odd = body.find((k) => k.local !== "sequence") ?? body[1]!;
      throw this.error(odd, `${what}: ${this.unsupported(odd.local)}`);
    }
    return { elements: this.sequenceParticles(seq, what), base: extension, abstract };
  }

  /** The record an xs:extension's base names (queued as used); refuses a base that is not a record. */
  private baseRecord(extension: Node, name: string): string {
    const q = this.qnameAttr(extension, "base");
    const complex = q.ns === this.tns ? this.complexTypes.get(q.local) : undefined;
    if (complex === undefined)
      throw this.error(
        extension,
        `complexType ${name} extends ${q.local}, which is not a complexType of this WSDL: only records can be extended`,
      );
    if (this.arrayType(q.local, complex) !== undefined)
      throw this.error(extension, `complexType ${name} extends the array type ${q.local}: not supported`);
    if (!this.usedRecords.has(q.local)) {
      this.usedRecords.add(q.local);
      this.recordQueue.push(q.local);
    }
    return q.local;
  }

  /**
   * A record may hold itself through its fields (ssrs's ModelItem holds ModelItem[]: every record field may
   * be absent), but its bases may not come back to it (the generator refuses that; say so here first).
   */
  private checkRecordCycles(): void {
    const state = new Map<string, 1 | 2>(); // 1 on the path, 2 done
    const deps = (name: string): string[] => {
      const base = this.records.get(name)!.base;
      return base !== undefined && this.records.has(base) ? [base] : [];
    };
    for (const start of this.records.keys()) {
      if (state.has(start)) continue;
      const path: { name: string; next: string[] }[] = [{ name: start, next: deps(start) }];
      state.set(start, 1);
      while (path.length > 0) {
        const top = path[path.length - 1]!;
        const dep = top.next.pop();
        if (dep === undefined) {
          state.set(top.name, 2);
          path.pop();
          continue;
        }
        const s = state.get(dep);
        if (s === 1) {
          const cycle = [...path.slice(path.findIndex((p) => p.name === dep)).map((p) => p.name), dep].join(
            " → ",
          );
          throw this.error(
            this.complexTypes.get(dep)!,
            `complexType ${dep} extends itself (${cycle}): a cycle of bases is not supported`,
          );
        }
        if (s === undefined) {
          state.set(dep, 1);
          path.push({ name: dep, next: deps(dep) });
        }
      }
    }
  }

  // ---- schema ------------------------------------------------------------------------------------

  private readTypes(types: Node): void {
    let main = false;
    for (const schema of types.children) {
      if (schema.ns === WSDL_NS && schema.local === "documentation") continue;
      if (schema.ns !== XS_NS || schema.local !== "schema") {
        throw this.error(schema, "wsdl:types may hold only xs:schema elements");
      }
      this.attempt(() => {
        main = this.readSchema(schema, main);
      });
    }
    if (!main) throw this.error(types, `wsdl:types has no schema for the service namespace ${this.tns}`);
  }

  /** One xs:schema of wsdl:types; true once the service namespace's schema was read. */
  private readSchema(schema: Node, mainBefore: boolean): boolean {
    let main = mainBefore;
    {
      const target = attr(schema, "targetNamespace") ?? "";
      if (target === MSTYPES_NS) return main; // guid and char: known by name
      // ASMX's soapenc arrays (StringArray, ...) for array parameters of the HTTP messages, which are
      // regenerated from the operations.
      if (target === `${this.tns}AbstractTypes` || target === `${this.tns}/AbstractTypes`) return main;
      if (target !== this.tns && !this.readElementSchema(schema, target)) {
        throw this.error(
          schema,
          `a schema for namespace ${target || "(none)"} is not supported: the types must be in the service namespace ${this.tns}`,
        );
      }
      if (target !== this.tns) return main;
      if (main) throw this.error(schema, "a second schema for the service namespace is not supported");
      main = true;
      if (attr(schema, "elementFormDefault") !== "qualified") {
        throw this.error(
          schema,
          'the schema is not elementFormDefault="qualified": unqualified elements are not supported',
        );
      }
      for (const c of schema.children) {
        this.attempt(() => this.schemaChild(c));
      }
    }
    return main;
  }

  /**
   * A schema of another namespace that holds elements only, as ASMX writes one for the request and response
   * elements of a method with a RequestNamespace (qualified, their types in the service's schema or
   * anonymous): its elements are kept by `{ns}local`. False (nothing kept) for any other schema.
   */
  private readElementSchema(schema: Node, target: string): boolean {
    if (target === "" || attr(schema, "elementFormDefault") !== "qualified") return false;
    const kids = schema.children.filter(
      (c) => !(c.ns === XS_NS && (c.local === "annotation" || c.local === "import")),
    );
    if (kids.length === 0 || !kids.every((c) => c.ns === XS_NS && c.local === "element")) return false;
    for (const c of kids) {
      const key = `{${target}}${this.requiredAttr(c, "name")}`;
      if (this.otherElements.has(key)) throw this.error(c, `a second element named ${key}`);
      this.otherElements.set(key, c);
    }
    return true;
  }

  private schemaChild(c: Node): void {
    if (c.ns !== XS_NS) throw this.error(c, "unexpected element inside xs:schema");
    switch (c.local) {
      case "element":
        this.named(c, this.elements);
        break;
      case "complexType":
        this.named(c, this.complexTypes);
        break;
      case "simpleType":
        this.named(c, this.simpleTypes);
        break;
      case "import": {
        const ns = attr(c, "namespace");
        if (attr(c, "schemaLocation") !== undefined)
          throw this.error(
            c,
            "xs:import with a schemaLocation is not supported: the WSDL must hold its whole schema",
          );
        if (ns !== XS_NS && ns !== MSTYPES_NS) this.warn(c, `xs:import of ${ns ?? "(no namespace)"} ignored`);
        break;
      }
      case "annotation":
        break;
      case "include":
      case "redefine":
        throw this.error(c, `xs:${c.local} is not supported: the WSDL must hold its whole schema`);
      default:
        this.warn(c, `top-level xs:${c.local} ignored`);
    }
  }

  // ---- bindings ----------------------------------------------------------------------------------

  private bindingKind(binding: Node): BindingKind {
    for (const c of binding.children) {
      if (c.local !== "binding") continue;
      if (c.ns === SOAP_NS || c.ns === SOAP12_NS) {
        const style = attr(c, "style") ?? "document";
        if (style !== "document")
          throw this.error(c, `the binding is style="${style}": only document/literal is supported`);
        const transport = attr(c, "transport");
        if (transport !== undefined && transport !== "http://schemas.xmlsoap.org/soap/http") {
          throw this.error(c, `the SOAP transport ${transport} is not supported (HTTP only)`);
        }
        return c.ns === SOAP_NS ? "soap11" : "soap12";
      }
      if (c.ns === HTTP_NS) {
        const verb = attr(c, "verb");
        if (verb === "GET") return "httpGet";
        if (verb === "POST") return "httpPost";
        throw this.error(c, `the HTTP binding's verb ${verb ?? "(none)"} is not supported (GET or POST)`);
      }
    }
    throw this.error(binding, "the binding is neither SOAP 1.1, SOAP 1.2 nor HTTP GET/POST");
  }

  /**
   * An operation's SOAP headers from its soap:header lines (ASMX: one message per header, whose part is a
   * global element of the header's complexType, named as the type): in when only the input lists it, out
   * when only the output does, inOut for both. The WSDL cannot say whether one is required (ASMX's
   * Required leaves no trace), so none is.
   */
  private headersOf(op: string, messages: Map<string, Node>): SpecHeader[] {
    const headers: SpecHeader[] = [];
    const direction = new Map<string, { in: boolean; out: boolean }>();
    for (const { node, output } of this.soapHeaders.get(op) ?? []) {
      const ref = this.qnameAttr(node, "message");
      const message = ref.ns === this.tns ? messages.get(ref.local) : undefined;
      if (message === undefined)
        throw this.error(node, `header message ${ref.local} of operation ${op} is not defined in this WSDL`);
      const partName = this.requiredAttr(node, "part");
      const part = message.children.find(
        (c) => c.ns === WSDL_NS && c.local === "part" && attr(c, "name") === partName,
      );
      if (part === undefined || attr(part, "element") === undefined)
        throw this.error(
          node,
          `header of operation ${op}: message ${ref.local} has no part ${partName} naming an element`,
        );
      const el = this.qnameAttr(part, "element");
      const decl = el.ns === this.tns ? this.elements.get(el.local) : undefined;
      if (decl === undefined)
        throw this.error(
          part,
          `header element ${el.local} of operation ${op} is not declared in the service's schema`,
        );
      const typeAttr = attr(decl, "type");
      const type = typeAttr === undefined ? undefined : this.qname(decl, typeAttr);
      if (
        type === undefined ||
        type.ns !== this.tns ||
        type.local !== el.local ||
        !this.complexTypes.has(type.local)
      )
        throw this.error(
          decl,
          `header element ${el.local} of operation ${op} must have the complexType of its own name (as ASMX writes a SoapHeader); the spec's headers are records named as their element`,
        );
      this.headerTypes.add(type.local);
      const t = this.typeRef(decl, type, `header ${el.local} of ${op}`);
      if (t.array)
        throw this.error(decl, `header ${el.local} of operation ${op} is an array: a header holds a record`);
      let seen = direction.get(type.local);
      if (seen === undefined) {
        seen = { in: false, out: false };
        direction.set(type.local, seen);
        headers.push({ record: type.local });
      }
      if (output) seen.out = true;
      else seen.in = true;
    }
    for (const header of headers) {
      const seen = direction.get(header.record)!;
      if (seen.out) header.direction = seen.in ? "inOut" : "out";
    }
    return headers;
  }

  private checkSoapBinding(binding: Node, kind: "soap11" | "soap12", first: boolean): void {
    const ns = kind === "soap11" ? SOAP_NS : SOAP12_NS;
    for (const op of binding.children) {
      if (op.ns !== WSDL_NS || op.local !== "operation") continue;
      this.attempt(() => this.checkSoapOperation(op, ns, first));
    }
  }

  private checkSoapOperation(op: Node, ns: string, first: boolean): void {
    {
      const name = this.requiredAttr(op, "name");
      // An overload's MessageName names its input (and everything on the wire); the operation keeps the
      // method's name.
      const input = op.children.find((c) => c.ns === WSDL_NS && c.local === "input");
      const wire = (input === undefined ? undefined : attr(input, "name")) ?? name;
      for (const c of op.children) {
        if (c.ns === ns && c.local === "operation") {
          const style = attr(c, "style") ?? "document";
          if (style !== "document") {
            // Reported once for all of them, after every binding was read (an rpc service has many).
            if (!this.rpcOperations.has(name)) this.rpcOperations.set(name, c);
            continue;
          }
          const action = attr(c, "soapAction");
          const expected = this.derivedAction(wire);
          // Another action than the derived one is the operation's own (spec `soap.action`); the bindings agree.
          if (action !== undefined && action !== expected) {
            const earlier = this.customActions.get(wire);
            if (first || earlier === undefined) this.customActions.set(wire, action);
            else if (earlier !== action)
              this.warn(
                c,
                `operation ${wire} has soapAction "${action}" here and "${earlier}" in the first SOAP binding; the first is kept`,
              );
          }
        }
        if (c.ns !== WSDL_NS || (c.local !== "input" && c.local !== "output" && c.local !== "fault"))
          continue;
        for (const e of c.children) {
          if (e.ns !== ns) continue;
          if (e.local === "headerfault") {
            this.problem(
              this.error(
                e,
                `operation ${wire} declares a header fault (soap:headerfault): not supported (ASMX answers header faults as SOAP faults)`,
              ),
            );
            continue;
          }
          if (e.local === "header") {
            const use = attr(e, "use") ?? "literal";
            if (use !== "literal") {
              this.problem(
                this.error(
                  e,
                  `operation ${wire}: a SOAP header of use="${use}" is not supported, only literal`,
                ),
              );
              continue;
            }
            // The headers are taken from the first SOAP binding; the other one lists the same (ASMX).
            if (first) {
              let list = this.soapHeaders.get(wire);
              if (list === undefined) this.soapHeaders.set(wire, (list = []));
              if (c.local !== "fault") list.push({ node: e, output: c.local === "output" });
            }
            continue;
          }
          if (e.local === "body") {
            const use = attr(e, "use") ?? "literal";
            if (use !== "literal" && !this.encodedOperations.has(name)) this.encodedOperations.set(name, e);
            // The message's parts in the body (the others are headers'): taken from the first SOAP binding.
            const listed = attr(e, "parts");
            if (listed !== undefined && first && c.local !== "fault")
              this.bodyParts.set(
                `${wire} ${c.local === "input" ? "in" : "out"}`,
                listed
                  .trim()
                  .split(/\s+/)
                  .filter((n) => n !== ""),
              );
          }
        }
      }
    }
  }

  /** The HTTP bindings are regenerated from the operations; warn where the imported one differs. */
  private checkHttpBinding(
    binding: Node,
    kind: "httpGet" | "httpPost",
    operations: readonly SpecOperation[],
  ): void {
    const listed = new Set<string>();
    const standard =
      kind === "httpGet" ? "http:urlEncoded" : 'mime:content type="application/x-www-form-urlencoded"';
    for (const op of binding.children) {
      if (op.ns !== WSDL_NS || op.local !== "operation") continue;
      const input = op.children.find((c) => c.ns === WSDL_NS && c.local === "input");
      const name = (input === undefined ? undefined : attr(input, "name")) ?? attr(op, "name") ?? "";
      listed.add(name);
      // ASMX's shape: location /{Op}, the standard form encoding in, mime:mimeXml (or nothing) out.
      for (const c of op.children) {
        if (c.ns === HTTP_NS && c.local === "operation" && attr(c, "location") !== `/${name}`) {
          this.warn(
            c,
            `operation ${name} is at location "${clip(attr(c, "location") ?? "")}"; the generated ${kind} binding serves it at /${name}`,
          );
        }
        if (c.ns !== WSDL_NS || (c.local !== "input" && c.local !== "output")) continue;
        for (const e of c.children) {
          const ok =
            c.local === "input"
              ? kind === "httpGet"
                ? e.ns === HTTP_NS && e.local === "urlEncoded"
                : e.ns === MIME_NS &&
                  e.local === "content" &&
                  attr(e, "type") === "application/x-www-form-urlencoded"
              : e.ns === MIME_NS && e.local === "mimeXml";
          if (!ok)
            this.warn(
              e,
              `operation ${name}: the ${kind} ${c.local} is ${e.prefix === "" ? "" : `${e.prefix}:`}${e.local}; the generated binding uses ${c.local === "input" ? standard : "mime:mimeXml"}`,
            );
        }
      }
    }
    for (const op of operations) {
      // As ASMX: no nullable, record or guid parameter, and no out or ref one.
      const httpable = (op.params ?? []).every(
        (p) => p.nullable !== true && p.direction === undefined && this.httpCarries(p.type),
      );
      const wire = op.messageName ?? op.name;
      if (httpable && !listed.has(wire))
        this.warn(
          binding,
          `the ${kind} binding lacks operation ${op.name}; the generated ${kind} binding will offer it`,
        );
      if (!httpable && listed.has(wire))
        this.warn(
          binding,
          `the ${kind} binding lists operation ${op.name}, which the generator offers over SOAP only`,
        );
    }
  }

  private httpCarries(type: string): boolean {
    // As ASMX's ScalarFormatter (and runtime/protocol/http.ts offeredOnHttp): no records, no guids.
    const item = type.endsWith("[]") ? type.slice(0, -2) : type;
    return (
      item !== "guid" &&
      item !== "xmlElement" &&
      item !== "xmlNode" &&
      !this.records.has(item) &&
      !this.usedRecords.has(item)
    );
  }

  // ---- credentials -------------------------------------------------------------------------------

  private moveCredentials(operations: SpecOperation[]): SpecParam[] {
    const names = this.options.credentials ?? [];
    if (names.length === 0) return [];
    const moved: SpecParam[] = [];
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      let first: SpecParam | undefined;
      for (const op of operations) {
        const p = op.params?.[k];
        if (p === undefined || p.name !== name) {
          throw new ImportError(
            `${this.source}: --credentials ${names.join(",")}: operation ${op.name} does not take ${name} as parameter ${k + 1} (it ${p === undefined ? `has ${op.params?.length ?? 0} parameters` : `has ${p.name} there`}); credentials must be the first parameters of every operation`,
          );
        }
        if (first === undefined) first = p;
        else if (p.type !== first.type || p.nullable !== first.nullable) {
          throw new ImportError(
            `${this.source}: --credentials: ${name} is ${describe(first)} in ${operations[0]!.name} but ${describe(p)} in ${op.name}`,
          );
        }
      }
      moved.push({ ...first! });
    }
    for (const op of operations) {
      op.params = op.params!.slice(names.length);
      if (op.params.length === 0) delete op.params;
    }
    return moved;
  }

  // ---- helpers -----------------------------------------------------------------------------------

  /** The file name at the end of an address's path (ExternalAPIService.asmx). */
  private endpointOf(at: Node, location: string): string | undefined {
    let path: string;
    try {
      path = new URL(location).pathname;
    } catch {
      this.warn(at, `the address "${clip(location)}" is not a URL; ignored`);
      return undefined;
    }
    const file = decodeURIComponentSafe(path.slice(path.lastIndexOf("/") + 1));
    if (!/^[A-Za-z0-9_.-]+$/.test(file)) {
      this.warn(
        at,
        `the address "${clip(location)}" does not end in a file name such as Service.asmx; ignored`,
      );
      return undefined;
    }
    return file;
  }

  private named(node: Node, into: Map<string, Node>): void {
    const name = this.requiredAttr(node, "name");
    if (into.has(name)) throw this.error(node, `a second ${node.local} named ${name}`);
    into.set(name, node);
  }

  /** A name the spec can hold as it is: its identifiers are ASCII letters, digits and underscores. */
  private collectWireNames(portType: Node): void {
    for (const op of portType.children) {
      if (op.ns !== WSDL_NS || op.local !== "operation") continue;
      const input = op.children.find((c) => c.ns === WSDL_NS && c.local === "input");
      const wire = (input === undefined ? undefined : attr(input, "name")) ?? attr(op, "name");
      if (wire !== undefined) this.operationWireNames.add(wire);
    }
  }

  /**
   * A MessageName (an input's name, the operation's name on the wire): an identifier, or an XML name a
   * path and a SOAPAction carry as they are (letters, digits, `_`, `.`, `-`: `User.GetApiKey`).
   */
  private wireNameOf(input: Node, method: string): string {
    const v = this.requiredAttr(input, "name");
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(v) || v.length > 200) {
      throw this.error(
        input,
        `the MessageName of ${method} (its name on the wire), "${clip(v)}", is not a name the spec can hold (a letter or underscore, then letters, digits, underscores, dots or hyphens)`,
      );
    }
    return v;
  }

  /**
   * The spec's name of an operation whose name on the wire is `wire`: that name when it is an identifier;
   * otherwise (a MessageName with a dot) the method's, as .NET's proxies name it (`Service.Ping` is
   * `Ping()`), with `messageName` keeping the wire name; when the method's name is taken (overloads), the
   * wire name with `_` for each dot or hyphen, with a warning.
   */
  private operationNames(method: string, wire: string, at: Node): { name: string; messageName?: string } {
    const isIdentifier = (n: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n);
    if (isIdentifier(wire)) {
      this.operationNamesGiven.add(wire);
      return { name: wire };
    }
    const free = (n: string) => !this.operationWireNames.has(n) && !this.operationNamesGiven.has(n);
    let name = method;
    if (!isIdentifier(method) || !free(method)) {
      name = wire.replace(/[.-]/g, "_");
      while (!free(name)) name = `${name}_`;
      this.warn(
        at,
        `operation ${wire} is named ${name} in the spec (${method}, its method's name, is another operation's)`,
      );
    }
    this.operationNamesGiven.add(name);
    return { name, messageName: wire };
  }

  private identifier(node: Node, attrName: string, what: string): string {
    const v = this.requiredAttr(node, attrName);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
      throw this.error(
        node,
        `${what}, "${clip(v)}", is not a name the spec can hold (a letter or underscore, then letters, digits or underscores)`,
      );
    }
    return v;
  }

  /** A record or enum name, which must not read as one of the spec's scalar types. */
  private typeName(node: Node, what: string): string {
    const name = this.identifier(node, "name", what);
    if (
      XS_SCALARS.has(name) ||
      name === "guid" ||
      name === "char" ||
      name === "xmlElement" ||
      name === "xmlNode"
    ) {
      throw this.error(
        node,
        `${what}, "${name}", is also the name of a scalar type in the spec, which would read it as that type`,
      );
    }
    return name;
  }

  private requiredAttr(node: Node, name: string): string {
    const v = attr(node, name);
    if (v === undefined || v === "") throw this.error(node, `the ${name} attribute is missing`);
    return v;
  }

  private qnameAttr(node: Node, name: string): QName {
    return this.qname(node, this.requiredAttr(node, name));
  }

  private qname(node: Node, value: string): QName {
    const colon = value.indexOf(":");
    const prefix = colon < 0 ? "" : value.slice(0, colon);
    const local = value.slice(colon + 1);
    const ns = lookupPrefix(node, prefix);
    if (ns === undefined) throw this.error(node, `the prefix ${prefix} of "${value}" is not declared`);
    return { ns, local };
  }

  private where(node: Node): string {
    const name = attr(node, "name");
    const tag = node.prefix === "" ? node.local : `${node.prefix}:${node.local}`;
    return `${this.source}:${node.line}: <${tag}${name === undefined ? "" : ` name="${clip(name)}"`}>`;
  }

  private error(node: Node, message: string): ImportError {
    return new ImportError(`${this.where(node)}: ${message}`, node.line);
  }

  private warn(node: Node, message: string): void {
    this.warnings.push(`${this.where(node)}: ${message}`);
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function describe(p: SpecParam): string {
  return `${p.type}${p.nullable ? " (nullable)" : ""}`;
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}...` : s;
}

/** The text of a wsdl:documentation child, if any and not empty. */
function docOf(node: Node): string | undefined {
  for (const c of node.children) {
    if ((c.ns === WSDL_NS && c.local === "documentation") || (c.ns === XS_NS && c.local === "annotation")) {
      const text = deepText(c);
      if (text !== "") return text;
    }
  }
  return undefined;
}
