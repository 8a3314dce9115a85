// Rules, checks and SOAP types in words: on the help pages, and (ruleText, columnNameText) in the TSDoc the
// generator writes on each parameter, so both say the same.

import type { CheckModel, ParamModel, RuleModel, SoapType } from "../model.js";
import { listInWords } from "../rules.js";
import { textFormatShape } from "../values.js";

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
    case "csvSubscribers":
      return (
        `CSV subscriber rows delimited by ${rule.delimiters.join(" or ")}: Email, Name, Format, ` +
        `then at most ${rule.maxDemographicFields} demographic fields.`
      );
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
  return param.type === "dateTime" ? "yyyy-MM-ddTHH:mm:ss" : param.type;
}

export function typeInWords(type: SoapType): string[] {
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
  }
}

export function checkInWords(check: CheckModel): string {
  switch (check.kind) {
    case "atLeastOne":
      return `At least one of ${listInWords(check.params, "and")} must be given.`;
    case "ordered":
      return `${check.from} must not be later than ${check.to}.`;
    case "demographicLists": {
      const lists =
        `${check.fields} names fields DD1 to DD${check.maxField}, delimited by ; or | (one of them, not both); ` +
        `${check.values} holds as many values, in the same order.`;
      return check.splitLength === undefined
        ? lists
        : `${lists} A value longer than ${check.splitLength} characters continues in the following fields.`;
    }
    case "columnName":
      return columnNameText(check);
  }
}
