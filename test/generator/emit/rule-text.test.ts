// The rule sentences of the parameters' TSDoc (and of the help pages): given a rule, want the exact sentence,
// one row per rule kind and per text format.

import { describe, expect, it } from "vitest";
import { columnNameText, ruleText } from "../../../generator/emit/rule-text.js";
import type { RuleModel } from "../../../runtime/model.js";

describe("ruleText", () => {
  it.each<{ given: RuleModel; want: string }>([
    { given: { kind: "enum", name: "color", values: ["red", "green"] }, want: "One of: red, green." },
    { given: { kind: "format", name: "d", format: "date" }, want: "Shape yyyy-MM-dd." },
    { given: { kind: "format", name: "t", format: "time" }, want: "Shape HH:mm." },
    { given: { kind: "format", name: "m", format: "dateTimeMinutes" }, want: "Shape yyyy-MM-dd HH:mm." },
    { given: { kind: "format", name: "s", format: "dateTimeSeconds" }, want: "Shape yyyy-MM-ddTHH:mm:ss." },
    { given: { kind: "maxLength", name: "x", max: 50 }, want: "At most 50 characters." },
    {
      given: { kind: "intText", name: "digit", min: 0, max: 9 },
      want: "A whole number from 0 to 9, as text.",
    },
    {
      given: { kind: "xmlName", name: "n", max: 64 },
      want: "A valid XML element name of at most 64 characters.",
    },
    {
      given: { kind: "url", name: "u", schemes: ["http", "https"] },
      want: "An absolute URL with scheme http, https.",
    },
    {
      given: {
        kind: "extension",
        name: "c",
        validator: "csvSubscribers",
        options: { delimiters: [",", ";"], maxDemographicFields: 20 },
        text: "CSV subscriber rows delimited by , or ;: Email, Name, Format, then at most 20 demographic fields.",
      },
      want: "CSV subscriber rows delimited by , or ;: Email, Name, Format, then at most 20 demographic fields.",
    },
  ])("$given.kind $given.name: $want", ({ given, want }) => {
    expect(ruleText(given)).toBe(want);
  });
});

describe("columnNameText", () => {
  it("names the parameter and the fixed columns in order", () => {
    expect(columnNameText({ kind: "columnName", param: "column", reserved: ["ItemId", "Qty"] })).toBe(
      "column must not name a fixed column of the result (ItemId, Qty), compared ignoring case.",
    );
  });
});
