// Names of the TypeScript types generated for spec elements, in one place so that the validator can refuse
// collisions before the emitters produce them.

export function dataSetRowTypeName(dataSet: string): string {
  return `${dataSet}Row`;
}

export function operationTypeNames(operation: string): { params: string; result: string } {
  return { params: `${operation}Params`, result: `${operation}Result` };
}

/** Fixed names in generated/types.ts. */
export const RESERVED_TYPE_NAMES = ["OperationTypes", "DataSetResult", "UntypedDataSet"] as const;
