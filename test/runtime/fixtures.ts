// Small hand-made models for the runtime tests, independent of spec/ and generated/.

import type {
  CheckModel,
  DataSetModel,
  OperationModel,
  ParamModel,
  RecordModel,
  ResultModel,
  RuleModel,
  SoapType,
  TypeModel,
} from "../../runtime/model.js";

export const NS = "http://tempuri.org/";

/** A scalar type by its name, or the type itself. */
export function typeOf(type: SoapType | TypeModel): TypeModel {
  return typeof type === "string" ? { kind: "scalar", type } : type;
}

export function param(
  name: string,
  type: SoapType | TypeModel,
  extra: {
    required?: boolean;
    default?: string;
    rules?: RuleModel[];
    credential?: boolean;
    nullable?: boolean;
  } = {},
): ParamModel {
  return {
    name,
    type: typeOf(type),
    ...(extra.nullable ? { nullable: true as const } : {}),
    required: extra.required ?? false,
    ...(extra.default === undefined ? {} : { default: extra.default }),
    rules: extra.rules ?? [],
    credential: extra.credential ?? false,
  };
}

export function operation(
  name: string,
  params: ParamModel[],
  result: ResultModel = { kind: "scalar", type: "int" },
  checks: CheckModel[] = [],
): OperationModel {
  return { name, group: "test", params, checks, result };
}

const credentials: ParamModel[] = [
  param("strUsername", "string", { required: true, credential: true }),
  param("strPassword", "string", { required: true, credential: true }),
];

/** Every SOAP type once, plus a required string and a defaulted string. */
export const mixedOp = operation("Mixed", [
  ...credentials,
  param("intNewsletterId", "int"),
  param("lngSubscriberId", "long"),
  param("dblRate", "double"),
  param("decAmount", "decimal"),
  param("datWhen", "dateTime"),
  param("blnFlag", "boolean"),
  param("strFormat", "string", {
    default: "HTML",
    rules: [{ kind: "enum", name: "format", values: ["HTML", "Text"] }],
  }),
  param("strNote", "string"),
]);

export const triggerResult: RecordModel = {
  name: "TriggerResult",
  fields: [
    { name: "Id", type: typeOf("int") },
    { name: "Name", type: typeOf("string") },
    { name: "Created", type: typeOf("dateTime") },
    { name: "MailinglistId", type: typeOf("int") },
    { name: "MailinglistName", type: typeOf("string") },
  ],
};

export const smsResult: RecordModel = {
  name: "SmsSingleMessageResult",
  fields: [
    { name: "Id", type: typeOf("long") },
    { name: "CreditCost", type: typeOf("decimal") },
    { name: "TotalCredits", type: typeOf("decimal") },
  ],
};

/** The docs/wire.md §5 sample's table; the fourth column is named by the request's ddField. */
export const reportViews: DataSetModel = {
  name: "ReportViews",
  dataSetName: "NewDataSet",
  table: "Table",
  columns: [
    { property: "SubscriberId", name: "SubscriberId", type: "long" },
    { property: "Email", name: "Email", type: "string" },
    { property: "ViewTime", name: "ViewTime", type: "dateTime" },
    { property: "FieldValue", nameFromParam: "ddField", type: "string" },
  ],
};

export const listOp = operation("GetTriggerIdForAccount", [...credentials], {
  kind: "list",
  record: triggerResult,
});

export const recordOp = operation("SendSmsWithSenderName", [...credentials], {
  kind: "record",
  record: smsResult,
});

export const longOp = operation("InsertSubscriberSid", [...credentials], { kind: "scalar", type: "long" });

export const dataSetOp = operation(
  "GetReportViewsByDateInterval",
  [...credentials, param("ddField", "string", { required: true })],
  { kind: "dataSet", dataSet: reportViews },
);
