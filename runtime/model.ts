// The normalized service description the runtime interprets, emitted from spec/*.yaml in two layers: the
// client's (ClientServiceModel in generated/model.ts: names, types, results, credential flags) and the
// server's (ServiceModel in generated/server-model.ts, which extends it with what only the server checks
// or shows: required parameters, rules and defaults, operation checks, groups, the service's name and its
// record and data set lists), so a client bundle carries no validation data. The documentation text is in neither: it is a ServiceDocTexts value (runtime/server/docs.ts,
// generated/docs.ts).

/** Credentials of no particular service: each under its property (the runtime's own view, client and server). */
export type AnyCredentials = Readonly<Record<string, unknown>>;

/** The scalar types of XML Schema (and .NET's guid and char from http://microsoft.com/wsdl/types/). */
export type SoapType =
  | "string"
  | "boolean"
  | "float"
  | "double"
  | "decimal"
  | "dateTime"
  | "byte"
  | "unsignedByte"
  | "short"
  | "unsignedShort"
  | "int"
  | "unsignedInt"
  | "long"
  | "unsignedLong"
  | "base64Binary"
  | "guid"
  | "char";

/** An enum of the spec (`enums:`): an xs:simpleType restricting string to its values, a union of them in TypeScript. */
export interface EnumModel {
  readonly name: string;
  readonly values: readonly string[];
  /**
   * A flags enum (.NET's [Flags], an xs:list of the values in the WSDL): a value is a set of the names, an
   * array in TypeScript, the names separated by spaces in XML (codec/enum-text.ts).
   */
  readonly flags?: true;
}

/** The type of a parameter, a record field or an array item. */
export type TypeModel =
  | { readonly kind: "scalar"; readonly type: SoapType }
  | { readonly kind: "enum"; readonly enum: EnumModel }
  | { readonly kind: "record"; readonly record: RecordModel }
  | XmlTypeModel
  | ArrayTypeModel;

/**
 * XML carried as XML (spec types xmlElement and xmlNode: .NET's XmlElement and XmlNode, xs:any in the WSDL):
 * one element, held as the tree readers make it (xml/tree.ts XmlElement). `mixed`: an XmlNode, whose WSDL
 * type says mixed="true".
 */
export type XmlTypeModel = { readonly kind: "xml"; readonly mixed?: true };

/** An array (`T[]`): never of arrays. */
export interface ArrayTypeModel {
  readonly kind: "array";
  /** Never an array. */
  readonly item: TypeModel;
  /** The element name of each item as .NET writes it: the item type's name ("int", "string", "Item"). */
  readonly itemElement: string;
  /** The WSDL complexType of the array: "ArrayOfInt", "ArrayOfItem". */
  readonly typeName: string;
}

/** Named formats of string parameters; each has one validator in runtime/codec/values.ts. */
export type TextFormat = "date" | "time" | "dateTimeMinutes" | "dateTimeSeconds";

export type RuleModel =
  | { readonly kind: "enum"; readonly name: string; readonly values: readonly string[] }
  | { readonly kind: "format"; readonly name: string; readonly format: TextFormat }
  | { readonly kind: "maxLength"; readonly name: string; readonly max: number }
  | { readonly kind: "intText"; readonly name: string; readonly min: number; readonly max: number }
  | { readonly kind: "xmlName"; readonly name: string; readonly max: number }
  | { readonly kind: "url"; readonly name: string; readonly schemes: readonly string[] }
  /** The whole value matches a regular expression (JavaScript syntax, unicode mode, as written: anchor it with ^ and $). */
  | { readonly kind: "pattern"; readonly name: string; readonly pattern: string }
  /** The value's length in characters (code points) is at least min and at most max (either may be absent). */
  | { readonly kind: "length"; readonly name: string; readonly min?: number; readonly max?: number }
  /** A numeric value is at least min and at most max (either may be absent), compared exactly. */
  | { readonly kind: "range"; readonly name: string; readonly min?: number; readonly max?: number }
  /**
   * A service's own rule, from the spec's extension module (`extensions:`): the generated server model puts
   * the named export of that module in `validate`; without it (a model built without the module) the rule
   * refuses every call with a server error naming the validator.
   */
  | {
      readonly kind: "extension";
      readonly name: string;
      /** The export of the extension module that checks the value. */
      readonly validator: string;
      readonly options: Readonly<Record<string, unknown>>;
      /** The rule in words, for the help pages and the parameter's TSDoc. */
      readonly text: string;
      readonly validate?: RuleValidator;
    };

/** What an extension validator returns for a value it refuses: the client error the caller gets. */
export interface ExtensionProblem {
  readonly code: string;
  readonly message: string;
  /** Default: the rule's parameter, or the check's first parameter. */
  readonly parameter?: string;
}

/** An extension rule: one non-empty string value, the parameter's name and the spec's options. */
export type RuleValidator = (
  value: string,
  parameter: string,
  options: Readonly<Record<string, unknown>>,
) => ExtensionProblem | undefined;

/** An extension check: every decoded parameter by name, the check's params and the spec's options. */
export type CheckValidator = (
  values: Readonly<Record<string, unknown>>,
  params: readonly string[],
  options: Readonly<Record<string, unknown>>,
) => ExtensionProblem | undefined;

export type CheckModel =
  | { readonly kind: "atLeastOne"; readonly params: readonly string[] }
  | { readonly kind: "ordered"; readonly from: string; readonly to: string }
  /** A service's own check over several parameters, from the spec's extension module (see the extension rule). */
  | {
      readonly kind: "extension";
      readonly validator: string;
      /** The parameters the check reads, in the order the validator expects them. */
      readonly params: readonly string[];
      readonly options: Readonly<Record<string, unknown>>;
      /** The check in words, for the help pages. */
      readonly text: string;
      readonly validate?: CheckValidator;
    }
  | {
      /**
       * The parameter's value names a DataSet column, so it must not equal a fixed column name of that
       * DataSet, compared ignoring case as .NET DataTable column names are. Not written in the spec:
       * normalize derives it from every column with nameFromParam of the operation's result.
       */
      readonly kind: "columnName";
      readonly param: string;
      /** The fixed column names of the result, in column order. */
      readonly reserved: readonly string[];
    };

/** A parameter as the client writes it. */
export interface ClientParamModel {
  readonly name: string;
  readonly type: TypeModel;
  /**
   * One alternative of an xs:choice (spec `choice`: .NET's member with an [XmlElement] per type): the
   * parameters of one choice are consecutive, of reference types, and at most one of them is present.
   */
  readonly choice?: string;
  /** A value type that may be null (`int?`: nillable="true" on the wire). */
  readonly nullable?: true;
  /** True for the credentials every operation takes first (the client's model leaves it out on the others). */
  readonly credential?: boolean;
  /** A credential's key in the client's config and the server's context, when it is not the name. */
  readonly property?: string;
}

/** A parameter as the server reads it: whether it is required, its default and rules. */
export interface ParamModel extends ClientParamModel {
  /** A required string must be present and non-empty; value types are always required on the wire. */
  readonly required: boolean;
  readonly credential: boolean;
  /** Literal the server substitutes when an optional string is absent or empty. */
  readonly default?: string;
  readonly rules: readonly RuleModel[];
}

export interface FieldModel {
  readonly name: string;
  readonly type: TypeModel;
  /** One alternative of an xs:choice, as a parameter's (ClientParamModel.choice). */
  readonly choice?: string;
  /** A value type that may be null (`int?`: nillable="true" on the wire). */
  readonly nullable?: true;
}

export interface RecordModel {
  readonly name: string;
  /** Every field in wire order: the base record's first (a derived type's), then its own. */
  readonly fields: readonly FieldModel[];
  /**
   * The record it extends (spec `base`: .NET's base class, `xs:extension` in the WSDL). Values are read and
   * written as this record's own, never as another type of the hierarchy (an xsi:type naming one is refused).
   */
  readonly base?: string;
  /** Only a base of other records (an abstract class): never the type of a value. */
  readonly abstract?: true;
  /**
   * The items of an array of a repeated xs:choice (.NET's `[XmlArrayItem(typeof(A))] [XmlArrayItem(typeof(B))]`,
   * `ArrayOfChoice1` in the WSDL): a value holds exactly one of the fields, and is written as that field's
   * element alone, with no element of its own. Only an array's item type.
   */
  readonly choice?: true;
}

export interface ColumnModel {
  /** Property name in the typed row. */
  readonly property: string;
  /** Fixed wire column name, or absent when the name comes from a request parameter. */
  readonly name?: string;
  /**
   * Request parameter whose value names this column (GetReportViewsByDateInterval's ddField). The
   * operation carries a columnName check so that the value never names a fixed column of the DataSet.
   */
  readonly nameFromParam?: string;
  readonly type: SoapType;
}

export interface DataSetModel {
  readonly name: string;
  readonly dataSetName: string;
  readonly table: string;
  readonly columns: readonly ColumnModel[];
}

/** Which way a SOAP header goes: sent by the client, answered by the server, or both. */
export type HeaderDirection = "in" | "out" | "inOut";

/**
 * A SOAP header of an operation (ASMX's [SoapHeader]): an element named as its record, in the service
 * namespace, holding the record's fields. HTTP GET and POST carry none.
 */
export interface HeaderModel {
  readonly record: RecordModel;
  readonly direction: HeaderDirection;
  /** An in or inOut header every call must carry (the server refuses a call without it). */
  readonly required?: true;
  /**
   * The service's credentials (spec `service.credentialsHeader`): the client fills it from its config, the
   * server hands it to the handler as context.credentials.
   */
  readonly credential?: true;
}

/** Whether the client sends the header (in, inOut). */
export const headerIsSent = (header: HeaderModel): boolean => header.direction !== "out";
/** Whether the server answers the header (out, inOut). */
export const headerIsAnswered = (header: HeaderModel): boolean => header.direction !== "in";

/** The TypeScript types of an operation's headers: those sent (`in`) and those answered (`out`), by name. */
export interface HeaderTypes {
  readonly in: object;
  readonly out: object;
}

/** An operation without headers. */
export interface NoHeaders {
  // biome-ignore lint/complexity/noBannedTypes: no header at all
  readonly in: {};
  // biome-ignore lint/complexity/noBannedTypes: no header at all
  readonly out: {};
}

export type ResultModel =
  /** `nullable`: a value type that may be null (.NET `int?`), `xsi:nil` on the wire. */
  | { readonly kind: "scalar"; readonly type: SoapType; readonly nullable?: true }
  | { readonly kind: "enum"; readonly enum: EnumModel; readonly nullable?: true }
  /** An array of records (ArrayOf<Record>). */
  | { readonly kind: "list"; readonly record: RecordModel }
  /** An XML element (XmlElement, XmlNode): inside `<OpResult>` over SOAP, the whole answer over HTTP. */
  | XmlTypeModel
  | { readonly kind: "record"; readonly record: RecordModel }
  | { readonly kind: "dataSet"; readonly dataSet: DataSetModel }
  /**
   * A DataSet whose tables and columns the spec does not name (spec `{ kind: dataSet }` without `dataSet`):
   * every table of the answer, with the columns its inline schema declares (codec/dataset.ts UntypedDataSet).
   */
  | {
      readonly kind: "untypedDataSet";
      /** A .NET DataTable (spec `dataTable: true`): one table; the HTTP root and the WSDL say DataTable. */
      readonly dataTable?: true;
    }
  /** An array of scalars or enums (arrays of records are `list`). */
  | {
      readonly kind: "array";
      readonly item: TypeModel;
      readonly itemElement: string;
      readonly typeName: string;
    }
  /**
   * An operation with out or ref parameters (spec `direction: out|inOut`): the response element holds
   * `<OpResult>` (unless void) and then each such parameter, read and written as the fields of `record`
   * (named `{Op}Response`, never declared as a type); the value is an object with those fields. SOAP only,
   * as ASMX (its HTTP GET/POST protocols leave such methods out).
   */
  | { readonly kind: "response"; readonly record: RecordModel }
  /** No result: the response element is empty (<OpResponse/>). */
  | { readonly kind: "void" }
  /** No output message at all: SOAP answers 202 with an empty body. */
  | { readonly kind: "oneWay" };

/**
 * How an operation's SOAP messages differ from ASMX's defaults (spec `soap`; .NET's [SoapDocumentMethod]
 * and `[return: XmlElement]`): each member absent keeps the default, derived from the operation's wire name
 * (wireName: its MessageName, else its name). HTTP GET and POST are not affected (the path is the wire name,
 * the answer's root in the service namespace, as ASMX).
 */
export interface SoapShapeModel {
  /** The SOAP action (SOAP 1.1's SOAPAction header, SOAP 1.2's action parameter); default namespace + wire name. */
  readonly action?: string;
  /** The namespace of the request and response elements and of what they hold; default the service's. */
  readonly namespace?: string;
  /** The request element (RequestElementName); default the wire name. Not with `bare`. */
  readonly requestElement?: string;
  /** The response element (ResponseElementName); default `{wire name}Response`. Not with `bare`. */
  readonly responseElement?: string;
  /** The result's element; default `{wire name}Result`. */
  readonly resultElement?: string;
  /**
   * ParameterStyle.Bare: no wrapper elements. The request's Body holds each parameter's element, the
   * answer's Body the result's element (none for void or a null result) and then each out or ref parameter's.
   */
  readonly bare?: true;
}

/** An operation's name on the wire: its MessageName, else its name. */
export const wireName = (op: { readonly name: string; readonly messageName?: string | undefined }): string =>
  op.messageName ?? op.name;

/** The request element's name (wrapped operations): default the wire name (wireName). */
export const requestElementOf = (op: SoapNamed): string => op.soap?.requestElement ?? wireName(op);

/** The response element's name (wrapped operations): default `{wire name}Response`. */
export const responseElementOf = (op: SoapNamed): string =>
  op.soap?.responseElement ?? `${wireName(op)}Response`;

/** The result's element name: default `{wire name}Result`. */
export const resultElementOf = (op: SoapNamed): string => op.soap?.resultElement ?? `${wireName(op)}Result`;

/** Whether the operation's messages are bare (ParameterStyle.Bare): no wrapper elements. */
export const isBare = (op: SoapNamed): boolean => op.soap?.bare === true;

/** What the element names are derived from: an operation's name, MessageName and SOAP shape. */
interface SoapNamed {
  readonly name: string;
  readonly messageName?: string | undefined;
  readonly soap?: SoapShapeModel | undefined;
}

/**
 * One operation as the client calls it. `Params` and `Result` are the TypeScript types of its parameters
 * (credentials excluded) and of its result; they exist only for the type checker (the `~types` property is
 * never set), so the client and the server take their method types from the descriptors (ClientOf,
 * HandlersOf).
 */
export interface ClientOperationModel<
  Params = unknown,
  Result = unknown,
  Headers extends HeaderTypes = HeaderTypes,
> {
  /** Never present at run time: carries Params, Result and Headers for the type checker. */
  readonly "~types"?: { readonly params: Params; readonly result: Result; readonly headers: Headers };
  /** The client's method and the handler's name (a TypeScript identifier). */
  readonly name: string;
  /**
   * The operation's name on the wire when it is not `name` (ASMX's MessageName, which may hold a dot:
   * `User.GetApiKey`): its request and response elements, its SOAPAction and its HTTP path. See wireName.
   */
  readonly messageName?: string;
  /** Credentials first, then the operation's own parameters, in wire order. */
  readonly params: readonly ClientParamModel[];
  readonly result: ResultModel;
  /** Its SOAP headers, in the WSDL's order; absent when it has none. */
  readonly headers?: readonly HeaderModel[] | undefined;
  /** How its SOAP messages differ from ASMX's defaults; absent when they do not. */
  readonly soap?: SoapShapeModel | undefined;
}

/**
 * One operation as the server reads it: its parameters with rules and defaults, its checks, its group, and
 * whether it changes data.
 */
export interface OperationModel<Params = unknown, Result = unknown, Headers extends HeaderTypes = HeaderTypes>
  extends ClientOperationModel<Params, Result, Headers> {
  readonly group: string;
  readonly params: readonly ParamModel[];
  readonly checks: readonly CheckModel[];
  /**
   * The spec's `effect`: "read" when the operation changes nothing, "write" when it changes data; absent
   * when the spec does not say, which tools that must not repeat a write (a shadow proxy) take as a write.
   */
  readonly effect?: "read" | "write";
}

/** The parameter type of an operation descriptor. */
export type ParamsOf<Op> = Op extends ClientOperationModel<infer Params, unknown> ? Params : never;

/** The result type of an operation descriptor. */
export type ResultOf<Op> = Op extends ClientOperationModel<unknown, infer Result> ? Result : never;

/** The header types of an operation descriptor. */
export type HeadersOf<Op> =
  Op extends ClientOperationModel<unknown, unknown, infer Headers> ? Headers : NoHeaders;

export interface GroupModel {
  readonly name: string;
  /** The group's heading on the help page; a label, kept here with the structure it names. */
  readonly title: string;
  readonly operations: readonly string[];
}

/** The service as the client needs it; its operations are the descriptors in generated/model.ts `operations`. */
export interface ClientServiceModel {
  readonly namespace: string;
  readonly endpoint: string;
  /** The bindings the service offers (spec `service.bindings`), when not all four. */
  readonly bindings?: readonly BindingName[] | undefined;
}

/** The service as the server, the WSDL and the help pages read it. */
export interface ServiceModel extends ClientServiceModel {
  readonly name: string;
  readonly groups: readonly GroupModel[];
  readonly records: readonly RecordModel[];
  readonly enums: readonly EnumModel[];
  readonly dataSets: readonly DataSetModel[];
  readonly operations: readonly OperationModel[];
}

/** The four bindings an ASMX endpoint answers on. */
export type BindingName = "soap11" | "soap12" | "httpGet" | "httpPost";

/** The four bindings, in the order the WSDL and the help pages list them. */
export const ALL_BINDINGS: readonly BindingName[] = ["soap11", "soap12", "httpGet", "httpPost"];

/** The bindings a service offers (spec `service.bindings`), in ALL_BINDINGS order; all four when it names none. */
export function offeredBindings(model: {
  readonly bindings?: readonly BindingName[] | undefined;
}): readonly BindingName[] {
  const named = model.bindings;
  return named === undefined ? ALL_BINDINGS : ALL_BINDINGS.filter((b) => named.includes(b));
}
