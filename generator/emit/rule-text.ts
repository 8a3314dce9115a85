// One sentence per rule, as TSDoc on the parameters that carry it (and on the help page).

import type { CheckModel, RuleModel } from "../../runtime/model.js";
import { textFormatShape } from "../../runtime/values.js";

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
