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
} from "../../runtime/model.js";

export const NS = "http://tempuri.org/";

export function param(
  name: string,
  type: SoapType,
  extra: { required?: boolean; default?: string; rules?: RuleModel[]; credential?: boolean } = {},
): ParamModel {
  return {
    name,
    type,
    required: extra.required ?? false,
    ...(extra.default === undefined ? {} : { default: extra.default }),
    rules: extra.rules ?? [],
    doc: `${name} doc`,
    credential: extra.credential ?? false,
  };
}

export function operation(
  name: string,
  params: ParamModel[],
  result: ResultModel = { kind: "scalar", type: "int", doc: "" },
  checks: CheckModel[] = [],
): OperationModel {
  return { name, group: "test", doc: `${name} doc`, params, checks, result };
}

export const credentials: ParamModel[] = [
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
  param("strFormat", "string", { default: "HTML", rules: [{ kind: "enum", name: "format", values: ["HTML", "Text"] }] }),
  param("strNote", "string"),
]);

export const triggerResult: RecordModel = {
  name: "TriggerResult",
  doc: "",
  fields: [
    { name: "Id", type: "int" },
    { name: "Name", type: "string" },
    { name: "Created", type: "dateTime" },
    { name: "MailinglistId", type: "int" },
    { name: "MailinglistName", type: "string" },
  ],
};

export const smsResult: RecordModel = {
  name: "SmsSingleMessageResult",
  doc: "",
  fields: [
    { name: "Id", type: "long" },
    { name: "CreditCost", type: "decimal" },
    { name: "TotalCredits", type: "decimal" },
  ],
};

/** The wire README §5 sample's table; the fourth column is named by the request's ddField. */
export const reportViews: DataSetModel = {
  name: "ReportViews",
  doc: "",
  dataSetName: "NewDataSet",
  table: "Table",
  columns: [
    { property: "SubscriberId", name: "SubscriberId", type: "long", doc: "" },
    { property: "Email", name: "Email", type: "string", doc: "" },
    { property: "ViewTime", name: "ViewTime", type: "dateTime", doc: "" },
    { property: "FieldValue", nameFromParam: "ddField", type: "string", doc: "" },
  ],
};

export const listOp = operation("GetTriggerIdForAccount", [...credentials], {
  kind: "list",
  record: triggerResult,
  doc: "",
});

export const recordOp = operation("SendSmsWithSenderName", [...credentials], {
  kind: "record",
  record: smsResult,
  doc: "",
});

export const longOp = operation("InsertSubscriberSid", [...credentials], { kind: "scalar", type: "long", doc: "" });

export const dataSetOp = operation(
  "GetReportViewsByDateInterval",
  [...credentials, param("ddField", "string", { required: true })],
  { kind: "dataSet", dataSet: reportViews, doc: "" },
);
