// The shape of a spec YAML document once it has passed spec/service.schema.json. Only validate.ts and
// normalize.ts read it; everything after normalization reads the ServiceModel instead.

import type { CheckModel, SoapType, TextFormat, BindingName } from "../runtime/model.js";

export interface SpecDocument {
  readonly service: SpecService;
  readonly rules?: Readonly<Record<string, SpecRule>>;
  readonly enums?: Readonly<Record<string, SpecEnum>>;
  readonly records?: Readonly<Record<string, SpecRecord>>;
  readonly dataSets?: Readonly<Record<string, SpecDataSet>>;
  /** The service's own validators (rules and checks of kind extension); the path is relative to the spec. */
  readonly extensions?: { readonly module: string };
  readonly groups: readonly SpecGroup[];
}

export interface SpecService {
  readonly name: string;
  readonly namespace: string;
  readonly endpoint: string;
  readonly doc: string;
  /** Parameters every operation takes first; each may name its `property` (the config and context key). */
  readonly credentials?: readonly SpecParam[];
  /** The record of a SOAP header every operation takes as its credentials (not with `credentials`). */
  readonly credentialsHeader?: string;
  /** The bindings offered; all four when absent. */
  readonly bindings?: readonly BindingName[];
}

/** A SOAP header of an operation: a record, its direction (default in) and whether it is required. */
export interface SpecHeader {
  readonly record: string;
  readonly direction?: "in" | "out" | "inOut";
  readonly required?: boolean;
}

/**
 * A type reference as the spec writes it: a scalar name, an enum or record name, optionally followed by
 * `[]` for an array (see parseTypeRef).
 */
export type SpecTypeRef = string;

/** A type reference split into its base name and whether it is an array. */
export function parseTypeRef(ref: SpecTypeRef): { readonly base: string; readonly array: boolean } {
  return ref.endsWith("[]") ? { base: ref.slice(0, -2), array: true } : { base: ref, array: false };
}

export interface SpecParam {
  readonly name: string;
  readonly type: SpecTypeRef;
  /** A value type that may be null. */
  readonly nullable?: boolean;
  /** An array only: each item's element name, when not its type's name ([XmlArrayItem]). */
  readonly itemName?: string;
  /** One alternative of an xs:choice: consecutive parameters with the same choice, at most one present. */
  readonly choice?: string;
  readonly required?: boolean;
  readonly default?: string;
  readonly rules?: readonly string[];
  /** Credentials only: the key in the client's config and the server's context.credentials (default: name). */
  readonly property?: string;
  /** An out parameter (answered in the response, never sent) or a ref one (inOut: both); default in. */
  readonly direction?: "in" | "out" | "inOut";
  readonly doc: string;
}

export type SpecRule = { readonly doc: string } & (
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "format"; readonly format: TextFormat }
  | { readonly kind: "maxLength"; readonly max: number }
  | { readonly kind: "intText"; readonly min: number; readonly max: number }
  | { readonly kind: "xmlName"; readonly max: number }
  | { readonly kind: "url"; readonly schemes: readonly string[] }
  | { readonly kind: "pattern"; readonly pattern: string }
  | { readonly kind: "length"; readonly min?: number; readonly max?: number }
  | { readonly kind: "range"; readonly min?: number; readonly max?: number }
  | {
      readonly kind: "extension";
      readonly validator: string;
      readonly options?: Readonly<Record<string, unknown>>;
      readonly text: string;
    }
);

export interface SpecEnum {
  readonly doc: string;
  readonly values: readonly string[];
  /** A [Flags] enum: a value is a set of the names (an array; in XML, separated by spaces). */
  readonly flags?: boolean;
}

export interface SpecField {
  readonly name: string;
  readonly type: SpecTypeRef;
  readonly nullable?: boolean;
  /** An array only: each item's element name, when not its type's name ([XmlArrayItem]). */
  readonly itemName?: string;
  /** One alternative of an xs:choice: consecutive fields with the same choice, at most one present. */
  readonly choice?: string;
}

export interface SpecRecord {
  readonly doc: string;
  /** The record it extends: its fields come first. */
  readonly base?: string;
  /** Only a base of other records, never a value's type. */
  readonly abstract?: boolean;
  /** The items of a repeated xs:choice: exactly one field set, written as that field's element alone. */
  readonly choice?: boolean;
  /** Its own fields (after the base's). */
  readonly fields: readonly SpecField[];
}

export interface SpecColumn {
  readonly property: string;
  readonly name?: string;
  readonly nameFromParam?: string;
  readonly type: SoapType;
  readonly doc: string;
}

export interface SpecDataSet {
  readonly doc: string;
  readonly dataSetName: string;
  readonly table: string;
  readonly columns: readonly SpecColumn[];
}

export interface SpecGroup {
  readonly name: string;
  readonly title: string;
  readonly operations: readonly SpecOperation[];
}

/** The checks a spec writes: every runtime check but the ones normalize derives itself. */
export type SpecCheck =
  | Exclude<CheckModel, { readonly kind: "columnName" | "extension" }>
  | {
      readonly kind: "extension";
      readonly validator: string;
      readonly params: readonly string[];
      readonly options?: Readonly<Record<string, unknown>>;
      readonly text: string;
    };

/** The older result forms, chosen by kind. */
export type SpecKindResult = { readonly doc: string } & (
  | { readonly kind: "scalar"; readonly type: SoapType }
  | { readonly kind: "list" | "record"; readonly record: string }
  /** Without `dataSet`: an untyped DataSet, whose tables and columns the answer declares. */
  | { readonly kind: "dataSet"; readonly dataSet?: string; readonly dataTable?: boolean }
);

/** A result of any type: `{ type: "Address[]", doc }`. */
export interface SpecTypedResult {
  readonly kind?: undefined;
  readonly type: SpecTypeRef;
  /** A value type or enum that may be null (`int?`). */
  readonly nullable?: boolean;
  readonly doc?: string;
}

export type SpecResult = SpecKindResult | SpecTypedResult;

export interface SpecOperation {
  readonly name: string;
  /**
   * Its name on the wire when that is not `name` (ASMX's MessageName, which may hold a dot): the request
   * and response elements, the SOAPAction and the HTTP path.
   */
  readonly messageName?: string;
  readonly doc: string;
  readonly params?: readonly SpecParam[];
  readonly headers?: readonly SpecHeader[];
  readonly checks?: readonly SpecCheck[];
  /** Absent: the operation returns nothing (void). */
  readonly result?: SpecResult;
  /** No output message at all; takes no result. */
  readonly oneWay?: boolean;
  /** read: changes nothing; write: changes data. Absent: taken as a write. */
  readonly effect?: "read" | "write";
  /** How its SOAP messages differ from ASMX's defaults ([SoapDocumentMethod]). */
  readonly soap?: SpecSoapShape;
}

/** An operation's SOAP message shape (runtime/model.ts SoapShapeModel); every member optional. */
export interface SpecSoapShape {
  readonly action?: string;
  readonly namespace?: string;
  readonly requestElement?: string;
  readonly responseElement?: string;
  readonly resultElement?: string;
  /** bare: ParameterStyle.Bare, no wrapper elements; wrapped (the default) as ASMX. */
  readonly parameterStyle?: "wrapped" | "bare";
}
