// Rules, checks and SOAP types in words: on the help pages, and (ruleText, columnNameText) in the TSDoc the
// generator writes on each parameter, so both say the same.

import type { CheckModel, ParamModel, RuleModel, SoapType, TypeModel } from "../../model.js";
import { typeName } from "../../codec/typed-xml.js";
import { listInWords } from "../../codec/rules.js";
import { textFormatShape } from "../../codec/values.js";

export function ruleText(rule: RuleModel): string {
  switch (rule.kind) {
    case "enum":
      return `One of: ${rule.values.join(", ")}.`;
    case "format":
      return `Shape ${textFormatShape(rule.format)}.`;
    case "maxLength":
      return `At most ${rule.max} characters.`;
    case "intText":
      return `A whole number from ${rule.min} to ${rule.max}, as text.`;
    case "xmlName":
      return `A valid XML element name of at most ${rule.max} characters.`;
    case "url":
      return `An absolute URL with scheme ${rule.schemes.join(", ")}.`;
    case "pattern":
      return `Matches the regular expression ${rule.pattern}.`;
    case "length":
      return rule.min !== undefined && rule.max !== undefined
        ? `From ${rule.min} to ${rule.max} characters.`
        : rule.min !== undefined
          ? `At least ${rule.min} characters.`
          : `At most ${rule.max} characters.`;
    case "range":
      return rule.min !== undefined && rule.max !== undefined
        ? `From ${rule.min} to ${rule.max}.`
        : rule.min !== undefined
          ? `At least ${rule.min}.`
          : `At most ${rule.max}.`;
    case "extension":
      return rule.text;
  }
}

/** The columnName check in words: on the parameter's TSDoc and in the help page's rules across parameters. */
export function columnNameText(check: Extract<CheckModel, { kind: "columnName" }>): string {
  return (
    `${check.param} must not name a fixed column of the result (${check.reserved.join(", ")}), ` +
    `compared ignoring case.`
  );
}

/** What to type into the test form: the allowed values or the format, else the SOAP type. */
export function valueHint(param: ParamModel): string {
  for (const rule of param.rules) {
    if (rule.kind === "enum") return rule.values.join(" | ");
    if (rule.kind === "format") return textFormatShape(rule.format);
  }
  if (param.type.kind === "enum") return param.type.enum.values.join(" | ");
  return param.type.kind === "scalar" && param.type.type === "dateTime"
    ? "yyyy-MM-ddTHH:mm:ss"
    : typeLabel(param.type);
}

/** A type as the WSDL and the help pages name it: `int`, `Color`, `Address`, `ArrayOfInt`. */
export const typeLabel: (type: TypeModel) => string = typeName;

/** A parameter or field type in words, for the help page's rules column. */
export function typeModelInWords(type: TypeModel, nullable?: boolean): string[] {
  const words =
    type.kind === "scalar"
      ? typeInWords(type.type)
      : type.kind === "enum"
        ? [`One of: ${type.enum.values.join(", ")}.`]
        : type.kind === "record"
          ? [`A ${type.record.name} record.`]
          : type.kind === "xml"
            ? ["One XML element, as it is."]
            : [`Zero or more ${typeLabel(type.item)} items.`];
  return nullable ? [...words, "May be null (xsi:nil)."] : words;
}

function typeInWords(type: SoapType): string[] {
  switch (type) {
    case "string":
      return [];
    case "int":
      return ["Whole number from -2147483648 to 2147483647."];
    case "long":
      return ["Whole number from -9223372036854775808 to 9223372036854775807."];
    case "double":
      return ["Number with . as decimal point; INF, -INF and NaN allowed."];
    case "decimal":
      return ["Exact decimal number with . as decimal point, such as 98.25."];
    case "dateTime":
      return ["Date and time as yyyy-MM-ddTHH:mm:ss, optionally with fractions and a zone (Z or +02:00)."];
    case "boolean":
      return ["true or false."];
    case "float":
      return ["Single-precision number with . as decimal point; INF, -INF and NaN allowed."];
    case "byte":
      return ["Whole number from -128 to 127."];
    case "unsignedByte":
      return ["Whole number from 0 to 255."];
    case "short":
      return ["Whole number from -32768 to 32767."];
    case "unsignedShort":
      return ["Whole number from 0 to 65535."];
    case "unsignedInt":
      return ["Whole number from 0 to 4294967295."];
    case "unsignedLong":
      return ["Whole number from 0 to 18446744073709551615."];
    case "base64Binary":
      return ["Bytes as base64 text."];
    case "guid":
      return ["A GUID such as 0f8fad5b-d9cb-469f-a165-70867728950e."];
    case "char":
      return ["One character, sent as its UTF-16 code (65 for A)."];
  }
}

export function checkInWords(check: CheckModel): string {
  switch (check.kind) {
    case "atLeastOne":
      return `At least one of ${listInWords(check.params, "and")} must be given.`;
    case "ordered":
      return `${check.from} must not be later than ${check.to}.`;
    case "extension":
      return check.text;
    case "columnName":
      return columnNameText(check);
  }
}
