// The shape of a spec YAML document once it has passed spec/service.schema.json. Only validate.ts and
// normalize.ts read it; everything after normalization reads the ServiceModel instead.

import type { CheckModel, SoapType, TextFormat } from "../runtime/model.js";

export interface SpecDocument {
  readonly service: SpecService;
  readonly rules?: Readonly<Record<string, SpecRule>>;
  readonly records?: Readonly<Record<string, SpecRecord>>;
  readonly dataSets?: Readonly<Record<string, SpecDataSet>>;
  readonly groups: readonly SpecGroup[];
}

export interface SpecService {
  readonly name: string;
  readonly namespace: string;
  readonly endpoint: string;
  readonly doc: string;
  readonly credentials?: readonly SpecParam[];
}

export interface SpecParam {
  readonly name: string;
  readonly type: SoapType;
  readonly required?: boolean;
  readonly default?: string;
  readonly rules?: readonly string[];
  readonly doc: string;
}

export type SpecRule = { readonly doc: string } & (
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "format"; readonly format: TextFormat }
  | { readonly kind: "maxLength"; readonly max: number }
  | { readonly kind: "intText"; readonly min: number; readonly max: number }
  | { readonly kind: "xmlName"; readonly max: number }
  | { readonly kind: "url"; readonly schemes: readonly string[] }
  | {
      readonly kind: "csvSubscribers";
      readonly delimiters: readonly string[];
      readonly maxDemographicFields: number;
    }
);

export interface SpecRecord {
  readonly doc: string;
  readonly fields: readonly { readonly name: string; readonly type: SoapType }[];
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
export type SpecCheck = Exclude<CheckModel, { readonly kind: "columnName" }>;

export type SpecResult = { readonly doc: string } & (
  | { readonly kind: "scalar"; readonly type: "int" | "long" }
  | { readonly kind: "list" | "record"; readonly record: string }
  | { readonly kind: "dataSet"; readonly dataSet: string }
);

export interface SpecOperation {
  readonly name: string;
  readonly doc: string;
  readonly params?: readonly SpecParam[];
  readonly checks?: readonly SpecCheck[];
  readonly result: SpecResult;
}
