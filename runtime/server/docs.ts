// The service's documentation text, kept apart from the model (runtime/model.ts) so that the codecs and the
// client carry none of it. generated/docs.ts holds one value, which only the help pages and the WSDL
// (server side) read; generated types carry the same text as JSDoc.

export interface ServiceDocTexts {
  /** The service. */
  readonly doc: string;
  readonly operations: { readonly [operation: string]: OperationDocs };
  readonly records: { readonly [record: string]: string };
  /** By enum name; absent in documents written before enums existed. */
  readonly enums?: { readonly [enumName: string]: string };
  readonly dataSets: {
    readonly [dataSet: string]: {
      readonly doc: string;
      readonly columns: { readonly [property: string]: string };
    };
  };
}

export interface OperationDocs {
  readonly doc: string;
  /** What the operation returns. */
  readonly result: string;
  /** By parameter name, credentials included. */
  readonly params: { readonly [param: string]: string };
}
