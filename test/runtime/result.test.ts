import { describe, expect, it } from "vitest";
import type { ResultModel } from "../../runtime/model.js";
import {
  dataSetRows,
  ResultShapeError,
  scalarText,
  soapResultXml,
  writeRecordFields,
  writeResultChildren,
} from "../../runtime/codec/result.js";
import { readResult } from "../../runtime/codec/result-read.js";
import { XmlOut } from "../../runtime/xml/out.js";
import { readXml } from "../../runtime/xml/scan.js";
import { DATASET_COLUMNS, TRIGGER_LIST_DOCUMENT } from "../fixtures/wire-samples.js";
import {
  dataSetOp,
  listOp,
  longOp,
  NS,
  operation,
  recordOp,
  reportViews,
  smsResult,
  triggerResult,
} from "./fixtures.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

const TRIGGER = { Id: 1, Name: "t1", Created: "2024-05-06T07:08:09", MailinglistId: 5, MailinglistName: "L" };
const TRIGGER_XML =
  "<TriggerResult><Id>1</Id><Name>t1</Name><Created>2024-05-06T07:08:09</Created><MailinglistId>5</MailinglistId><MailinglistName>L</MailinglistName></TriggerResult>";

function shapeError(run: () => unknown): ResultShapeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ResultShapeError);
    return error as ResultShapeError;
  }
  throw new Error("expected a ResultShapeError");
}

describe("writeRecordFields", () => {
  it.each([
    {
      name: "every field",
      given: TRIGGER,
      want: TRIGGER_XML.slice("<TriggerResult>".length, -"</TriggerResult>".length),
    },
    {
      name: "null and undefined strings are omitted",
      given: { Id: 1, Name: null, Created: "2024-05-06T07:08:09", MailinglistId: 5 },
      want: "<Id>1</Id><Created>2024-05-06T07:08:09</Created><MailinglistId>5</MailinglistId>",
    },
    {
      name: "an empty string is written as an empty element",
      given: { ...TRIGGER, Name: "", MailinglistName: "a & b" },
      want: "<Id>1</Id><Name /><Created>2024-05-06T07:08:09</Created><MailinglistId>5</MailinglistId><MailinglistName>a &amp; b</MailinglistName>",
    },
    {
      name: "a Date is written in UTC, extra properties ignored",
      given: { ...TRIGGER, Created: new Date(Date.UTC(2024, 4, 6, 7, 8, 9)), Extra: "x" },
      want: "<Id>1</Id><Name>t1</Name><Created>2024-05-06T07:08:09Z</Created><MailinglistId>5</MailinglistId><MailinglistName>L</MailinglistName>",
    },
  ])("$name", ({ given, want }) => {
    const out = new XmlOut(false);
    writeRecordFields(out, triggerResult, given);
    expect(out.toString()).toBe(want);
  });

  it("writes exact decimals and longs", () => {
    const out = new XmlOut(false);
    writeRecordFields(out, smsResult, { Id: 9223372036854775807n, CreditCost: "1.5", TotalCredits: "98.25" });
    expect(out.toString()).toBe(
      "<Id>9223372036854775807</Id><CreditCost>1.5</CreditCost><TotalCredits>98.25</TotalCredits>",
    );
  });

  it.each([
    { name: "a missing int", given: { ...TRIGGER, Id: undefined }, message: "TriggerResult.Id is missing" },
    {
      name: "a null dateTime",
      given: { ...TRIGGER, Created: null },
      message: "TriggerResult.Created is missing",
    },
    {
      name: "an int of the wrong kind",
      given: { ...TRIGGER, MailinglistId: "5" },
      message: "TriggerResult.MailinglistId is not a whole number",
    },
    {
      name: "an int out of range",
      given: { ...TRIGGER, Id: 2 ** 31 },
      message: "TriggerResult.Id is outside the 32-bit integer range",
    },
    {
      name: "a string of the wrong kind",
      given: { ...TRIGGER, Name: 3 },
      message: "TriggerResult.Name is not a string",
    },
    {
      name: "a bad dateTime",
      given: { ...TRIGGER, Created: "2023-02-29T00:00:00" },
      message: "TriggerResult.Created is not a valid calendar date and time",
    },
    {
      name: "text XML cannot carry",
      given: { ...TRIGGER, Name: "bell\u0007" },
      message: "TriggerResult.Name String contains",
    },
    { name: "not an object", given: null, message: "TriggerResult is not an object" },
    { name: "a primitive", given: 7, message: "TriggerResult is not an object" },
  ])("refuses $name", ({ given, message }) => {
    expect(shapeError(() => writeRecordFields(new XmlOut(false), triggerResult, given)).message).toContain(
      message,
    );
  });
});

describe("writeResultChildren", () => {
  it("writes a list indented as the HTTP bindings do", () => {
    const out = new XmlOut(true).open("ArrayOfTriggerResult");
    expect(writeResultChildren(out, listOp.result, [TRIGGER], {})).toBe(true);
    expect(out.close("ArrayOfTriggerResult").toString()).toBe(
      [
        "<ArrayOfTriggerResult>",
        "  <TriggerResult>",
        "    <Id>1</Id>",
        "    <Name>t1</Name>",
        "    <Created>2024-05-06T07:08:09</Created>",
        "    <MailinglistId>5</MailinglistId>",
        "    <MailinglistName>L</MailinglistName>",
        "  </TriggerResult>",
        "</ArrayOfTriggerResult>",
      ].join("\n"),
    );
  });

  it.each<{ name: string; result: ResultModel; value: unknown; want: string; wrote: boolean }>([
    {
      name: "a list, compact",
      result: listOp.result,
      value: [TRIGGER, TRIGGER],
      want: TRIGGER_XML + TRIGGER_XML,
      wrote: true,
    },
    { name: "an empty list writes nothing", result: listOp.result, value: [], want: "", wrote: false },
    {
      name: "a record puts its fields directly inside",
      result: recordOp.result,
      value: { Id: 99n, CreditCost: "1.5", TotalCredits: "98.25" },
      want: "<Id>99</Id><CreditCost>1.5</CreditCost><TotalCredits>98.25</TotalCredits>",
      wrote: true,
    },
  ])("$name", ({ result, value, want, wrote }) => {
    const out = new XmlOut(false);
    expect(writeResultChildren(out, result, value, {})).toBe(wrote);
    expect(out.toString()).toBe(want);
  });

  it.each([
    { name: "rows", value: [{ SubscriberId: 7n }] },
    {
      name: "a DataSetResult",
      value: { dataSetName: "NewDataSet", table: "Table", columns: [], rows: [{ SubscriberId: 7n }] },
    },
  ])("a DataSet from $name", ({ value }) => {
    const out = new XmlOut(false);
    expect(writeResultChildren(out, dataSetOp.result, value, { ddField: "DD3" })).toBe(true);
    expect(out.toString()).toContain('<xs:element name="DD3" type="xs:string" minOccurs="0" />');
    expect(out.toString()).toContain("<SubscriberId>7</SubscriberId></Table>");
  });

  it.each<{ name: string; result: ResultModel; value: unknown; message: string }>([
    { name: "a scalar", result: longOp.result, value: 1n, message: "a scalar result has no children" },
    {
      name: "a list that is not an array",
      result: listOp.result,
      value: TRIGGER,
      message: "not an array of TriggerResult",
    },
    {
      name: "a bad list item",
      result: listOp.result,
      value: [TRIGGER, { Id: 2 }],
      message: "TriggerResult.Created is missing",
    },
    {
      name: "a DataSet without rows",
      result: dataSetOp.result,
      value: { rows: "x" },
      message: "no rows array",
    },
    {
      name: "a DataSet that is not an object",
      result: dataSetOp.result,
      value: null,
      message: "DataSet result is not an object",
    },
  ])("refuses $name", ({ result, value, message }) => {
    expect(shapeError(() => writeResultChildren(new XmlOut(false), result, value, {})).message).toContain(
      message,
    );
  });

  it("dataSetRows takes an array as is", () => {
    const rows = [{ a: 1 }];
    expect(dataSetRows(rows)).toBe(rows);
  });
});

describe("scalarText", () => {
  const intResult = { kind: "scalar", type: "int" } as const;
  const longResult = { kind: "scalar", type: "long" } as const;

  it.each([
    { result: longResult, value: 1234567890123n, want: "1234567890123" },
    { result: longResult, value: 9223372036854775807n, want: "9223372036854775807" },
    { result: longResult, value: 12, want: "12" },
    { result: intResult, value: -2147483648, want: "-2147483648" },
  ])("$result.type $value", ({ result, value, want }) => {
    expect(scalarText(result, value)).toBe(want);
  });

  it.each([
    { result: longResult, value: "12", message: "the long result is not a bigint or a safe integer" },
    { result: intResult, value: 2 ** 31, message: "the int result is outside the 32-bit integer range" },
    { result: intResult, value: undefined, message: "the int result is not a whole number" },
  ])("refuses $result.type $value", ({ result, value, message }) => {
    expect(shapeError(() => scalarText(result, value)).message).toBe(message);
  });
});

describe("readResult", () => {
  const holder = (xml: string) => readXml(xml);

  it.each<{ name: string; xml: string; want: unknown }>([
    {
      name: "a SOAP list",
      xml: `<GetTriggerIdForAccountResult xmlns="${NS}">${TRIGGER_XML}${TRIGGER_XML.replace("<Id>1</Id>", "<Id>2</Id>")}</GetTriggerIdForAccountResult>`,
      want: [TRIGGER, { ...TRIGGER, Id: 2 }],
    },
    { name: "an HTTP list, indented", xml: TRIGGER_LIST_DOCUMENT, want: [TRIGGER] },
    {
      name: "an empty list",
      xml: `<ArrayOfTriggerResult xmlns="${NS}" />`,
      want: [],
    },
    {
      name: "a list item without its optional strings",
      xml: `<r xmlns="${NS}"><TriggerResult><Id>1</Id><Created>2024-05-06T07:08:09Z</Created><MailinglistId>5</MailinglistId></TriggerResult></r>`,
      want: [{ Id: 1, Created: "2024-05-06T07:08:09Z", MailinglistId: 5 }],
    },
    {
      name: "a list ignores records in another namespace",
      xml: `<r xmlns="${NS}">${TRIGGER_XML}<x:TriggerResult xmlns:x="urn:other"><x:Id>9</x:Id></x:TriggerResult></r>`,
      want: [TRIGGER],
    },
  ])("$name", ({ xml, want }) => {
    expect(readResult(listOp, holder(xml), NS, {})).toStrictEqual(want);
  });

  it("a record", () => {
    const xml = `<SendSmsWithSenderNameResult xmlns="${NS}"><Id>99</Id><CreditCost>1.5</CreditCost><TotalCredits>98.25</TotalCredits></SendSmsWithSenderNameResult>`;
    expect(readResult(recordOp, holder(xml), NS, {})).toStrictEqual({
      Id: 99n,
      CreditCost: "1.5",
      TotalCredits: "98.25",
    });
  });

  it("a record field named __proto__ is an own property, not the prototype", () => {
    const fields = [
      { name: "__proto__", type: { kind: "scalar", type: "int" } },
      { name: "Name", type: { kind: "scalar", type: "string" } },
    ] as const;
    const op = operation("Proto", [], { kind: "record", record: { name: "Proto", fields } });
    const read = readResult(
      op,
      holder(`<ProtoResult xmlns="${NS}"><__proto__>7</__proto__><Name>n</Name></ProtoResult>`),
      NS,
      {},
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(read, "__proto__")?.value).toBe(7);
    expect(Object.keys(read)).toEqual(["__proto__", "Name"]);
  });

  it.each([
    {
      xml: `<InsertSubscriberSidResult xmlns="${NS}">1234567890123</InsertSubscriberSidResult>`,
      want: 1234567890123n,
    },
    { xml: `<long xmlns="${NS}">9223372036854775807</long>`, want: 9223372036854775807n },
    { xml: `<long xmlns="${NS}">\n  -9223372036854775808\n</long>`, want: -9223372036854775808n },
  ])("a long scalar $want", ({ xml, want }) => {
    expect(readResult(longOp, holder(xml), NS, {})).toBe(want);
  });

  it("an int scalar", () => {
    const intOp = operation("GetCount", []);
    expect(readResult(intOp, holder(`<int xmlns="${NS}">-2147483648</int>`), NS, {})).toBe(-2147483648);
  });

  it("a DataSet", () => {
    const out = new XmlOut(false).open("GetReportViewsByDateIntervalResult", ` xmlns="${NS}"`);
    writeResultChildren(out, dataSetOp.result, [{ SubscriberId: 7n, Email: "e@x" }], { ddField: "DD3" });
    const result = readResult(
      dataSetOp,
      holder(out.close("GetReportViewsByDateIntervalResult").toString()),
      NS,
      {
        ddField: "DD3",
      },
    );
    expect(result).toStrictEqual({
      dataSetName: reportViews.dataSetName,
      table: "Table",
      columns: DATASET_COLUMNS,
      rows: [{ SubscriberId: 7n, Email: "e@x", ViewTime: null, FieldValue: null }],
    });
  });

  it("an absent holder is an empty list (a null list in .NET)", () => {
    expect(readResult(listOp, undefined, NS, {})).toStrictEqual([]);
  });

  it("an absent record is null (a null record in .NET)", () => {
    expect(readResult(recordOp, undefined, NS, {})).toBeNull();
  });

  it.each([
    {
      name: "an absent scalar",
      op: longOp,
      xml: undefined,
      message: "the answer holds no InsertSubscriberSidResult",
    },
    {
      name: "a record missing a value field",
      op: recordOp,
      xml: `<r xmlns="${NS}"><Id>1</Id><CreditCost>1.5</CreditCost></r>`,
      message: "SendSmsWithSenderNameResult.TotalCredits is missing.",
    },
    {
      name: "a field in the wrong namespace",
      op: recordOp,
      xml: `<r xmlns="${NS}"><Id xmlns="">1</Id><CreditCost>1.5</CreditCost><TotalCredits>2</TotalCredits></r>`,
      message: "SendSmsWithSenderNameResult.Id is missing.",
    },
    {
      name: "a field that does not convert",
      op: listOp,
      xml: `<r xmlns="${NS}">${TRIGGER_XML.replace("<Id>1</Id>", "<Id>x</Id>")}</r>`,
      message:
        "Cannot convert 'x' to int for GetTriggerIdForAccountResult[0].Id: the value is not a whole number.",
    },
    {
      name: "a decimal in exponent form",
      op: recordOp,
      xml: `<r xmlns="${NS}"><Id>1</Id><CreditCost>1e5</CreditCost><TotalCredits>2</TotalCredits></r>`,
      message:
        "Cannot convert '1e5' to decimal for SendSmsWithSenderNameResult.CreditCost: the value is not a decimal number.",
    },
    {
      name: "a long text that does not convert, quoted cut to 40 characters",
      op: longOp,
      xml: `<long xmlns="${NS}">${"9".repeat(50)}</long>`,
      message: `Cannot convert '${"9".repeat(40)}...' to long for InsertSubscriberSidResult: the value is outside the 64-bit integer range.`,
    },
    {
      name: "a scalar that does not convert",
      op: longOp,
      xml: `<long xmlns="${NS}">9223372036854775808</long>`,
      message: "64-bit",
    },
  ])("refuses $name", ({ op, xml, message }) => {
    expect(() => readResult(op, xml === undefined ? undefined : holder(xml), NS, {})).toThrow(message);
  });
});

describe("nullable value type and enum results (.NET int?, Color?)", () => {
  const XSI = "http://www.w3.org/2001/XMLSchema-instance";
  const nextOp = operation("Next", [], { kind: "scalar", type: "int", nullable: true });
  const plainOp = operation("Count", [], { kind: "scalar", type: "int" });
  const colorOp = operation("Favourite", [], {
    kind: "enum",
    enum: { name: "Color", values: ["Red", "Green"] },
    nullable: true,
  });
  const nilResult = (name: string) =>
    readXml(`<r xmlns="${NS}" xmlns:xsi="${XSI}"><${name} xsi:nil="true" /></r>`).children[0]!;

  it('a null is written <OpResult xsi:nil="true" /> on SOAP, as ASMX writes it', () => {
    expect(soapResultXml(nextOp, null, {})).toBe('<NextResult xsi:nil="true" />');
    expect(soapResultXml(nextOp, undefined, {})).toBe('<NextResult xsi:nil="true" />');
    expect(soapResultXml(nextOp, 6, {})).toBe("<NextResult>6</NextResult>");
    expect(soapResultXml(colorOp, null, {})).toBe('<FavouriteResult xsi:nil="true" />');
    expect(soapResultXml(colorOp, "Green", {})).toBe("<FavouriteResult>Green</FavouriteResult>");
    // Not nullable: a null is the handler's mistake.
    shapeError(() => soapResultXml(plainOp, null, {}));
  });

  it("a nil or absent result reads as null; a nil result that is not nullable says so", () => {
    expect(readResult(nextOp, nilResult("NextResult"), NS, {})).toBeNull();
    expect(readResult(nextOp, undefined, NS, {})).toBeNull();
    expect(readResult(colorOp, nilResult("FavouriteResult"), NS, {})).toBeNull();
    expect(() => readResult(plainOp, nilResult("CountResult"), NS, {})).toThrow(
      "the answer's CountResult is nil (xsi:nil), but the int result is not nullable",
    );
    expect(() => readResult(plainOp, undefined, NS, {})).toThrow("the answer holds no CountResult");
  });
});
