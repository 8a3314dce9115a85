// easgen import: ASMX WSDLs → spec YAML. Fixtures in ./fixtures are in the shape ASMX hosts publish
// (CRLF line ends, the s/tns/s1 prefixes, the four bindings or fewer); each has its expected spec.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  importCommand,
  importToYaml,
  importWsdl,
  ImportError,
  schemaReference,
} from "../../generator/import/index.js";
import { scalar, specToYaml } from "../../generator/import/yaml-out.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");
const FIXTURES = path.join(HERE, "fixtures");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

const SHAPES = ["calculator", "lookup", "registry", "notifier"] as const;

/** Imports WSDL text, expecting an ImportError; returns its message. */
function refusal(text: string, credentials?: string[]): string {
  try {
    importWsdl(text, { source: "x.wsdl", credentials });
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return (e as Error).message;
  }
  throw new Error("the import did not refuse");
}

/** The 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(0, at).split("\n").length;
}

function replaceOnce(text: string, from: string, to: string): string {
  expect(text.includes(from), `fixture holds ${from}`).toBe(true);
  return text.replace(from, () => to);
}

describe("easgen import: fixtures", () => {
  it.each(SHAPES)("%s.wsdl imports to exactly %s.expected.yaml", async (name) => {
    const { yaml } = await importToYaml(path.join(FIXTURES, `${name}.wsdl`));
    expect(yaml).toBe(fixture(`${name}.expected.yaml`));
  });

  it("maps every shape the fixtures hold", () => {
    const lookup = importWsdl(fixture("lookup.wsdl"), { source: "lookup.wsdl" }).spec;
    expect(lookup.records).toEqual({
      Country: {
        doc: expect.any(String),
        fields: [
          { name: "Name", type: "string" },
          { name: "Code", type: "string" },
          { name: "Cities", type: "City[]" },
          { name: "Aliases", type: "string[]", itemName: "Alias" },
          { name: "Capital", type: "City", choice: "Item" },
          { name: "CapitalName", type: "string", choice: "Item" },
          { name: "Sights", type: "Choice1[]" },
        ],
      },
      City: {
        doc: expect.any(String),
        fields: [
          { name: "Name", type: "string" },
          { name: "Population", type: "long" },
          { name: "Districts", type: "City[]" },
        ],
      },
      Choice1: {
        doc: expect.any(String),
        choice: true,
        fields: [
          { name: "Town", type: "City" },
          { name: "Landmark", type: "string" },
        ],
      },
    });
    expect(lookup.service.doc).toBe("Looks up countries and their cities.");
    expect(lookup.service.endpoint).toBe("CountryLookup.asmx");

    const registry = importWsdl(fixture("registry.wsdl"), { source: "registry.wsdl" });
    const ops = registry.spec.groups[0]!.operations;
    expect(registry.spec.service.bindings).toEqual(["soap11", "soap12", "httpPost"]);
    expect(registry.spec.service.namespace).toBe("urn:example:registry");
    expect(registry.spec.enums).toEqual({
      Status: { doc: expect.any(String), values: ["Active", "Suspended", "Closed"] },
      Level: { doc: expect.any(String), values: ["Low", "Medium", "High"] },
    });
    expect(ops.find((o) => o.name === "Register")!.params).toEqual([
      { name: "name", type: "string", doc: expect.any(String) },
      { name: "age", type: "int", nullable: true, doc: expect.any(String) },
      { name: "born", type: "dateTime", nullable: true, doc: expect.any(String) },
      { name: "status", type: "Status", doc: expect.any(String) },
      { name: "verified", type: "boolean", doc: expect.any(String) },
      { name: "initial", type: "char", doc: expect.any(String) },
    ]);
    expect(ops.find((o) => o.name === "Register")!.result!.type).toBe("guid");
    // The HTTP POST binding of an ASMX host leaves out operations with guid or nullable parameters; the
    // generator does the same (offeredOnHttp), so nothing differs and nothing is warned.
    expect(registry.warnings).toEqual([]);
    expect(registry.spec.service.bindings).toEqual(["soap11", "soap12", "httpPost"]);

    const notifier = importWsdl(fixture("notifier.wsdl"), { source: "notifier.wsdl" }).spec;
    const byName = new Map(notifier.groups[0]!.operations.map((o) => [o.name, o]));
    expect(notifier.service.bindings).toEqual(["soap11", "soap12"]);
    expect(notifier.service.credentials).toBeUndefined();
    expect(byName.get("Reset")).toEqual({ name: "Reset", doc: "Forgets every notification." });
    expect(byName.get("Notify")!.oneWay).toBe(true);
    expect(byName.get("Notify")!.result).toBeUndefined();
    expect(byName.get("Log")!.doc).toBe("Imported; describe it.");
    expect(byName.get("Sum")!.params!.map((p) => p.type)).toEqual([
      "byte",
      "unsignedByte",
      "short",
      "unsignedShort",
      "unsignedInt",
      "unsignedLong",
      "decimal",
      "float",
    ]);
  });

  it("reads UTF-8 with a BOM and UTF-16 with a BOM the same", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "easgen-import-"));
    try {
      const text = fixture("calculator.wsdl");
      const utf8 = path.join(dir, "calculator.wsdl");
      writeFileSync(utf8, `\uFEFF${text}`);
      expect((await importToYaml(utf8)).yaml).toBe(fixture("calculator.expected.yaml"));
      const utf16 = text.replace('encoding="utf-8"', 'encoding="utf-16"');
      writeFileSync(utf8, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf16, "utf16le")]));
      expect((await importToYaml(utf8)).yaml).toBe(fixture("calculator.expected.yaml"));
      writeFileSync(utf8, Buffer.from([0x3c, 0xff, 0x3e]));
      await expect(importToYaml(utf8)).rejects.toThrow(/not valid UTF-8/);
      writeFileSync(utf8, text.replace('encoding="utf-8"', 'encoding="iso-8859-1"'));
      await expect(importToYaml(utf8)).rejects.toThrow(/declares encoding iso-8859-1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("easgen import: bare, renamed and other-namespace messages ([SoapDocumentMethod])", () => {
  const documentMethods = readFileSync(
    path.join(REPO, "test/asmx-host/recorded/constructs/DocumentMethods/service.wsdl"),
    "utf8",
  );
  // The RPC method has no spec shape: its portType, binding and message entries go.
  const withoutRpc = documentMethods
    .replace(/<wsdl:message name="Multiply[A-Za-z0-9]*">[\s\S]*?<\/wsdl:message>\s*/g, "")
    .replace(/<wsdl:operation name="Multiply">[\s\S]*?<\/wsdl:operation>\s*/g, "");
  const ops = () =>
    Object.fromEntries(
      importWsdl(withoutRpc, { source: "d.wsdl" }).spec.groups[0]!.operations.map((o) => [o.name, o]),
    );

  it("writes each operation's soap shape as the host's WSDL gives it", () => {
    const o = ops();
    expect(o.GetQuote!.soap).toEqual({ parameterStyle: "bare" });
    expect(o.GetQuote!.params).toEqual([{ name: "symbol", type: "string", doc: expect.any(String) }]);
    expect(o.GetQuote!.result).toMatchObject({ type: "Quote" });
    expect(o.Forget!.soap).toEqual({ parameterStyle: "bare" });
    expect(o.Forget!.result).toBeUndefined();
    expect(o.Wrap!.params).toMatchObject([{ name: "dadosMsg", type: "xmlNode" }]);
    expect(o.Count!.soap).toEqual({ parameterStyle: "bare", resultElement: "Int32" });
    expect(o.Count!.params).toMatchObject([
      { name: "text", type: "string" },
      { name: "warnings", type: "string", direction: "inOut" },
    ]);
    expect(o.Lookup!.soap).toEqual({
      requestElement: "LookupRequest",
      responseElement: "LookupReply",
      action: "urn:example:actions/lookup",
    });
    expect(o.Square!.soap).toEqual({ namespace: "urn:example:other" });
    expect(o.Notified!.soap).toBeUndefined();
    // The rpc method alone is still refused.
    expect(refusal(documentMethods)).toMatch(/operation Multiply is style="rpc"/);
  });

  it("refuses a bare part named other than its element, and a wrapped request with a bare response", () => {
    let text = replaceOnce(
      withoutRpc,
      '<wsdl:part name="symbol" element="tns:symbol" />',
      '<wsdl:part name="sym" element="tns:symbol" />',
    );
    expect(refusal(text)).toMatch(
      /<wsdl:part name="sym">: a parameter of GetQuote is part sym whose element is named symbol: a bare parameter's element must be named as the parameter/,
    );
    text = replaceOnce(
      withoutRpc,
      '<wsdl:part name="parameters" element="tns:LookupReply" />',
      '<wsdl:part name="LookupResult" element="tns:string" />',
    );
    expect(refusal(text)).toMatch(/the request of Lookup is wrapped but its response is bare: not supported/);
  });

  it("keeps only soap:body parts= in the body: a header part of the same message is not a parameter", () => {
    const text = withoutRpc
      .replace(
        '<wsdl:part name="symbol" element="tns:symbol" />',
        '<wsdl:part name="symbol" element="tns:symbol" />\n    <wsdl:part name="Extra" element="tns:key" />',
      )
      .replace(
        /(<wsdl:operation name="GetQuote">\s*<soap(?:12)?:operation [^>]*>\s*<wsdl:input>\s*<soap(?:12)?:body use="literal")/g,
        '$1 parts="symbol"',
      );
    const o = Object.fromEntries(
      importWsdl(text, { source: "d.wsdl" }).spec.groups[0]!.operations.map((x) => [x.name, x]),
    );
    expect(o.GetQuote!.params?.map((p) => p.name)).toEqual(["symbol"]);
    // Without parts= the second part is a parameter too (and its element is not named as it).
    expect(refusal(text.replaceAll(' parts="symbol"', ""))).toMatch(/part Extra whose element is named key/);
  });
});

describe("easgen import: ExternalAPIService", () => {
  /** The comparable structure of a spec: names and types, docs and rules left out. */
  function structure(spec: Record<string, unknown>) {
    const typeOf = (r: Record<string, unknown>): string =>
      r.kind === "list"
        ? `${r.record as string}[]`
        : r.kind === "record"
          ? (r.record as string)
          : r.kind === "dataSet"
            ? `dataSet`
            : (r.type as string);
    const param = (p: Record<string, unknown>) =>
      `${p.name as string}: ${typeOf(p)}${p.nullable === true ? "?" : ""}`;
    const service = spec.service as Record<string, unknown>;
    const groups = spec.groups as { operations: Record<string, unknown>[] }[];
    return {
      name: service.name,
      namespace: service.namespace,
      endpoint: service.endpoint,
      credentials: ((service.credentials ?? []) as Record<string, unknown>[]).map(param),
      records: Object.fromEntries(
        Object.entries((spec.records ?? {}) as Record<string, { fields: Record<string, unknown>[] }>).map(
          ([k, v]) => [k, v.fields.map(param)],
        ),
      ),
      operations: groups.flatMap((g) =>
        g.operations.map((o) => ({
          name: o.name,
          params: ((o.params ?? []) as Record<string, unknown>[]).map(param),
          result: o.result === undefined ? "void" : typeOf(o.result as Record<string, unknown>),
        })),
      ),
    };
  }

  it("imports generated/ExternalAPIService.wsdl to the structure of spec/ExternalAPIService.yaml", async () => {
    const result = await importToYaml(path.join(REPO, "generated/ExternalAPIService.wsdl"), {
      credentials: ["strUsername", "strPassword"],
    });
    const imported = parse(result.yaml) as Record<string, unknown>;
    const original = parse(readFileSync(path.join(REPO, "spec/ExternalAPIService.yaml"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(structure(imported)).toEqual(structure(original));
    expect(result.warnings).toEqual([]);
    // Decision: a DataSet result imports as an untyped DataSet ({ kind: dataSet } without a dataSet): the
    // WSDL cannot say its tables and columns, the answers do; the spec generates without a hand edit.
    expect(imported.dataSets).toBeUndefined();
    const results = (imported.groups as { operations: { name: string; result?: unknown }[] }[])[0]!
      .operations;
    for (const name of ["GetReportViewsByDateInterval", "GetSubscriberMailingLists"])
      expect(results.find((o) => o.name === name)!.result).toEqual({
        kind: "dataSet",
        doc: "Imported; describe it.",
      });
    expect(result.yaml).toContain("# The DataSet results are untyped");
    expect((imported.service as Record<string, unknown>).bindings).toEqual([
      "soap11",
      "soap12",
      "httpGet",
      "httpPost",
    ]);
  });

  it("--credentials must name the first parameters of every operation, in order", () => {
    const text = readFileSync(path.join(REPO, "generated/ExternalAPIService.wsdl"), "utf8");
    expect(refusal(text, ["strPassword"])).toMatch(
      /--credentials strPassword: operation GetTriggerClicks does not take strPassword as parameter 1 \(it has strUsername there\)/,
    );
    const allInt = fixture("calculator.wsdl").replaceAll('type="s:double"', 'type="s:int"');
    expect(refusal(allInt, ["a", "b", "c"])).toMatch(
      /operation Add does not take c as parameter 3 \(it has 2 parameters\)/,
    );
    const lookup = fixture("lookup.wsdl");
    expect(refusal(lookup, ["code"])).toMatch(/operation ListCountries does not take code as parameter 1/);
    // Same name, different type in two operations.
    expect(refusal(fixture("calculator.wsdl"), ["a"])).toBe(
      "x.wsdl: --credentials: a is int in Add but double in Multiply",
    );
  });

  it("--credentials moves them into service.credentials", () => {
    const allInt = fixture("calculator.wsdl").replaceAll('type="s:double"', 'type="s:int"');
    const { spec } = importWsdl(allInt, { source: "c", credentials: ["a"] });
    expect(spec.service.credentials).toEqual([{ name: "a", type: "int", doc: "Imported; describe it." }]);
    for (const op of spec.groups[0]!.operations)
      expect(op.params).toEqual([{ name: "b", type: "int", doc: "Imported; describe it." }]);
    const both = importWsdl(allInt, { source: "c", credentials: ["a", "b"] }).spec;
    expect(both.service.credentials!.map((c) => c.name)).toEqual(["a", "b"]);
    for (const op of both.groups[0]!.operations) expect(op.params).toBeUndefined();
  });
});

describe("easgen import: refusals name the element and line", () => {
  const calc = fixture("calculator.wsdl");
  const lookup = fixture("lookup.wsdl");

  it("SOAP headers", () => {
    const text = replaceOnce(
      calc,
      '<soap:body use="literal" />',
      '<soap:body use="literal" />\r\n        <soap:header message="tns:AuthHeader" part="AuthHeader" use="literal" />',
    );
    // Headers are imported (test/headers/); one whose message is not there, or a header fault, is refused.
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, "<soap:header")}: <soap:header>: header message AuthHeader of operation Add is not defined in this WSDL`,
    );
    const fault = replaceOnce(
      calc,
      '<soap:body use="literal" />',
      '<soap:body use="literal" />\r\n        <soap:headerfault message="tns:AuthHeader" part="AuthHeader" use="literal" />',
    );
    expect(refusal(fault)).toBe(
      `x.wsdl:${lineOf(fault, "<soap:headerfault")}: <soap:headerfault>: operation Add declares a header fault (soap:headerfault): not supported (ASMX answers header faults as SOAP faults)`,
    );
  });

  it("rpc style and encoded use", () => {
    let text = replaceOnce(
      calc,
      '<soap12:operation soapAction="http://tempuri.org/Divide" style="document" />',
      '<soap12:operation soapAction="http://tempuri.org/Divide" style="rpc" />',
    );
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, 'style="rpc"')}: <soap12:operation>: operation Divide is style="rpc": only document/literal is supported`,
    );
    text = replaceOnce(
      calc,
      '<soap:body use="literal" />',
      '<soap:body use="encoded" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" />',
    );
    expect(refusal(text)).toMatch(
      new RegExp(
        `^x\\.wsdl:${lineOf(text, 'use="encoded"')}: <soap:body>: operation Add is use="encoded": rpc/encoded messages are not supported`,
      ),
    );
    text = replaceOnce(
      calc,
      '<soap:binding transport="http://schemas.xmlsoap.org/soap/http" />',
      '<soap:binding transport="http://schemas.xmlsoap.org/soap/http" style="rpc" />',
    );
    expect(refusal(text)).toMatch(/<soap:binding>: the binding is style="rpc"/);
    text = replaceOnce(
      calc,
      '<wsdl:part name="parameters" element="tns:Add" />',
      '<wsdl:part name="a" type="s:int" />',
    );
    expect(refusal(text)).toMatch(
      /<wsdl:part name="a">: part a of message AddSoapIn has a type, not an element: rpc-style messages are not supported/,
    );
  });

  it("arrays of arrays, nullable items, unwrapped arrays and renamed items", () => {
    let text = replaceOnce(
      lookup,
      '<s:element minOccurs="0" maxOccurs="unbounded" name="string" nillable="true" type="s:string" />',
      '<s:element minOccurs="0" maxOccurs="unbounded" name="ArrayOfCity" nillable="true" type="tns:ArrayOfCity" />',
    );
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, 'name="ArrayOfCity" nillable')}: <s:element name="ArrayOfCity">: complexType ArrayOfString is an array of arrays (City[][]): arrays of arrays are not supported`,
    );
    text = replaceOnce(
      lookup,
      'name="Population" type="s:long" />',
      'name="Population" type="s:long" />\r\n          <s:element minOccurs="0" maxOccurs="unbounded" name="Zip" type="s:int" />',
    );
    expect(refusal(text)).toMatch(
      /<s:element name="Zip">: field Zip of City repeats \(maxOccurs="unbounded"\) outside an ArrayOf type/,
    );
    // Items named other than their type ([XmlArrayItem("Town")]) keep their name (lookup.wsdl's
    // Country.Aliases); a result's are refused: ArrayOfCity is also GetCities's result.
    text = replaceOnce(
      lookup,
      'name="City" nillable="true" type="tns:City"',
      'name="Town" nillable="true" type="tns:City"',
    );
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, 'name="GetCitiesResult"')}: <s:element name="GetCitiesResult">: result of GetCities: an array whose items are named Town, not after their type ([XmlArrayItem] on a result), is not supported`,
    );
    text = [lookup].map((t) =>
      replaceOnce(
        t,
        'name="string" nillable="true" type="s:string"',
        'name="int" nillable="true" type="s:int"',
      ),
    )[0]!;
    expect(refusal(text)).toMatch(
      /complexType ArrayOfString: nullable items \(int\?\[\]\) are not supported/,
    );
  });

  it("xs:choice, xs:all, attributes, derived types, xs:any", () => {
    const record = '<s:complexType name="City">\r\n        <s:sequence>';
    const cases: [string, RegExp][] = [
      [
        '<s:complexType name="City">\r\n        <s:choice>',
        /<s:choice>: complexType City: xs:choice is not supported/,
      ],
      [
        '<s:complexType name="City">\r\n        <s:all>',
        /<s:all>: complexType City: xs:all is not supported/,
      ],
      [
        `${record}\r\n          <s:choice><s:element name="A" type="s:int" /></s:choice>`,
        /<s:element name="A">: field A of City is an alternative of an xs:choice of the value type int: not supported/,
      ],
      [
        `${record}\r\n          <s:choice maxOccurs="unbounded"><s:element name="A" type="s:string" /></s:choice>`,
        /<s:choice>: complexType City: a repeated xs:choice \(maxOccurs="unbounded"\) inside a sequence is not supported/,
      ],
      [`${record}\r\n          <s:any />`, /<s:any>: complexType City: xs:any .* is not supported/],
    ];
    for (const [to, message] of cases) {
      let text = replaceOnce(lookup, record, to);
      if (to.endsWith("<s:choice>"))
        text = text.replace(
          '</s:sequence>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
          '</s:choice>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
        );
      if (to.endsWith("<s:all>"))
        text = text.replace(
          '</s:sequence>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
          '</s:all>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
        );
      expect(refusal(text)).toMatch(message);
    }
    let text = replaceOnce(
      lookup,
      `${record}`,
      '<s:complexType name="City">\r\n        <s:attribute name="id" type="s:int" />\r\n        <s:sequence>',
    );
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, "<s:attribute")}: <s:attribute name="id">: complexType City: XML attributes (xs:attribute) are not supported: the spec describes elements only`,
    );
    text = replaceOnce(
      lookup,
      record,
      '<s:complexType name="City">\r\n        <s:complexContent mixed="false"><s:restriction base="tns:Country"><s:sequence>',
    );
    text = text.replace(
      '</s:sequence>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
      '</s:sequence></s:restriction></s:complexContent>\r\n      </s:complexType>\r\n      <s:element name="ListCountries">',
    );
    expect(refusal(text)).toMatch(
      /<s:restriction>: complexType City: a derived type by restriction \(xs:restriction\) is not supported, only by extension/,
    );
  });

  it("out and ref parameters: imported in an order that gives both messages'; refused when it cannot", () => {
    // An out parameter (only in the response) and a ref one (b: in both), answered after AddResult.
    let text = replaceOnce(
      calc,
      'name="AddResult" type="s:int" />',
      'name="AddResult" type="s:int" />\r\n            <s:element minOccurs="1" maxOccurs="1" name="carry" type="s:int" /><s:element minOccurs="1" maxOccurs="1" name="b" type="s:int" />',
    );
    const add = (t: string) =>
      importWsdl(t, { source: "x.wsdl" }).spec.groups[0]!.operations.find((o) => o.name === "Add")!;
    expect(add(text).params).toEqual([
      { name: "a", type: "int", doc: "Imported; describe it." },
      { name: "carry", type: "int", direction: "out", doc: "Imported; describe it." },
      { name: "b", type: "int", direction: "inOut", doc: "Imported; describe it." },
    ]);
    expect(add(text).result).toEqual({ type: "int", doc: "Imported; describe it." });
    // A ref parameter answered as another type, and ref parameters answered in another order than sent.
    text = replaceOnce(
      calc,
      'name="AddResult" type="s:int" />',
      'name="AddResult" type="s:int" />\r\n            <s:element minOccurs="1" maxOccurs="1" name="a" type="s:long" />',
    );
    expect(refusal(text)).toMatch(
      new RegExp(
        `^x\\.wsdl:${lineOf(text, 'name="a" type="s:long"')}: <s:element name="a">: a of Add is answered as long but sent as int: a ref parameter has one type`,
      ),
    );
    text = replaceOnce(
      calc,
      'name="AddResult" type="s:int" />',
      'name="AddResult" type="s:int" />\r\n            <s:element minOccurs="1" maxOccurs="1" name="b" type="s:int" /><s:element minOccurs="1" maxOccurs="1" name="a" type="s:int" />',
    );
    expect(refusal(text)).toMatch(
      /<s:element name="a">: ref parameter a of Add is answered after b but sent before it: the spec gives both in one order/,
    );
  });

  it("DataSet parameters, unknown types, lists of named types, recursive records", () => {
    let text: string;
    text = replaceOnce(
      calc,
      '<s:element minOccurs="1" maxOccurs="1" name="a" type="s:int" />',
      '<s:element minOccurs="0" maxOccurs="1" name="a"><s:complexType><s:sequence><s:element ref="s:schema" /><s:any /></s:sequence></s:complexType></s:element>',
    );
    expect(refusal(text)).toMatch(
      /<s:element name="a">: parameter a of Add is a DataSet: only results may be DataSets or DataTables/,
    );
    text = replaceOnce(calc, 'name="a" type="s:int"', 'name="a" type="s:duration"');
    expect(refusal(text)).toMatch(
      /<s:element name="a">: parameter a of Add has type xs:duration, which the spec has no type for/,
    );
    text = replaceOnce(calc, 'name="a" type="s:int"', 'name="a" type="s:anyType"');
    expect(refusal(text)).toMatch(/has type xs:anyType/);
    const registry = fixture("registry.wsdl");
    text = replaceOnce(
      registry,
      '<s:simpleType name="Status">\r\n        <s:restriction base="s:string">',
      '<s:simpleType name="Status">\r\n        <s:list><s:simpleType><s:restriction base="s:string">',
    );
    text = replaceOnce(
      text,
      '<s:enumeration value="Closed" />\r\n        </s:restriction>',
      '<s:enumeration value="Closed" />\r\n        </s:restriction></s:simpleType></s:list>',
    );
    // A [Flags] enum (a list of its own enumeration) imports; a list of a named type does not.
    expect(importWsdl(text, { source: "x.wsdl" }).spec.enums?.Status?.flags).toBe(true);
    text = text.replace(
      /<s:list><s:simpleType><s:restriction base="s:string">[\s\S]*?<\/s:list>/,
      '<s:list itemType="s:string" />',
    );
    expect(refusal(text)).toMatch(
      /<s:list>: simpleType Status is a list of a named type: only a list of its own enumeration/,
    );
    // A record may hold itself through its fields (lookup.wsdl's City holds City[]); not through bases.
    text = replaceOnce(
      lookup,
      'name="Population" type="s:long" />',
      'name="Population" type="s:long" />\r\n          <s:element minOccurs="0" maxOccurs="1" name="Capital" type="tns:Country" />',
    );
    expect(importWsdl(text, { source: "x.wsdl" }).spec.records?.["City"]?.fields[2]).toEqual({
      name: "Capital",
      type: "Country",
    });
    text = replaceOnce(
      lookup,
      '<s:complexType name="City">\r\n        <s:sequence>',
      '<s:complexType name="City">\r\n        <s:complexContent mixed="false"><s:extension base="tns:Town"><s:sequence>',
    );
    text = replaceOnce(
      text,
      'name="Districts" type="tns:ArrayOfCity" />\r\n        </s:sequence>',
      'name="Districts" type="tns:ArrayOfCity" />\r\n        </s:sequence></s:extension></s:complexContent>',
    );
    text = replaceOnce(
      text,
      '<s:element name="ListCountries">',
      '<s:complexType name="Town"><s:complexContent mixed="false"><s:extension base="tns:City" /></s:complexContent></s:complexType>\r\n      <s:element name="ListCountries">',
    );
    expect(refusal(text)).toMatch(
      /complexType (City|Town) extends itself \((City → Town → City|Town → City → Town)\): a cycle of bases is not supported/,
    );
  });

  it("custom SOAPActions, wsdl:import, HTTP-only services, not a WSDL", () => {
    // A custom SOAPAction (in both SOAP bindings) is the operation's own: soap.action.
    let text = calc.replaceAll('soapAction="http://tempuri.org/Add"', 'soapAction="urn:add"');
    const add = (t: string) =>
      importWsdl(t, { source: "x.wsdl" }).spec.groups[0]!.operations.find((o) => o.name === "Add")!;
    expect(add(text).soap).toEqual({ action: "urn:add" });
    expect(add(calc).soap).toBeUndefined();
    // A namespace without a trailing slash: .NET puts one between it and the operation.
    const registry = importWsdl(fixture("registry.wsdl"), { source: "r" });
    expect(registry.spec.service.namespace).toBe("urn:example:registry");
    expect(registry.spec.groups[0]!.operations.every((o) => o.soap === undefined)).toBe(true);
    text = replaceOnce(
      calc,
      "<wsdl:types>",
      '<wsdl:import namespace="urn:x" location="other.wsdl" />\r\n  <wsdl:types>',
    );
    expect(refusal(text)).toBe(
      `x.wsdl:3: <wsdl:import>: wsdl:import is not supported: import a WSDL that holds all its parts in one document`,
    );
    text = calc.replace(/ {4}<wsdl:port name="CalculatorSoap(12)?"[^]*?<\/wsdl:port>\r\n/g, "");
    expect(refusal(text)).toMatch(
      /<wsdl:service name="Calculator">: the service has no SOAP 1.1 or SOAP 1.2 port/,
    );
    expect(refusal("<definitions/>")).toBe(
      "x.wsdl:1: <definitions>: the root element is not wsdl:definitions (namespace http://schemas.xmlsoap.org/wsdl/); not a WSDL 1.1 document",
    );
    expect(refusal("<a><b></a>")).toMatch(/^x\.wsdl: not a well-formed XML document the reader accepts: /);
    expect(refusal('<!DOCTYPE x [<!ENTITY a "b">]><x/>')).toMatch(
      /^x\.wsdl: not a well-formed XML document the reader accepts: /,
    );
    text = replaceOnce(calc, 'elementFormDefault="qualified" ', "");
    expect(refusal(text)).toMatch(/<s:schema>: the schema is not elementFormDefault="qualified"/);
  });

  it("reports every construct it refuses in one run, in line order", () => {
    // Three refusals in three places: a header in the binding, xs:choice in a record, an rpc operation.
    let text = replaceOnce(
      lookup,
      '<s:complexType name="City">\r\n        <s:sequence>',
      '<s:complexType name="City">\r\n        <s:sequence><s:choice maxOccurs="2"><s:element name="A" type="s:string" /></s:choice>',
    );
    // The last operation's: the header goes to the first one's input.
    const soapOp = [...text.matchAll(/<soap:operation soapAction="([^"]+)" style="document"/g)].at(-1)!;
    text = replaceOnce(text, soapOp[0], `<soap:operation soapAction="${soapOp[1]}" style="rpc"`);
    text = replaceOnce(
      text,
      '<soap:body use="literal" />',
      '<soap:body use="literal" />\r\n        <soap:header message="tns:AuthHeader" part="AuthHeader" use="literal" />',
    );
    const message = refusal(text);
    const lines = message.split("\n");
    expect(lines[0]).toBe("x.wsdl: 3 constructs the spec cannot describe:");
    expect(lines.slice(1).map((l) => Number(/^ {2}x\.wsdl:(\d+): /.exec(l)?.[1]))).toEqual(
      [
        lineOf(text, '<s:choice maxOccurs="2">'),
        lineOf(text, 'style="rpc"'),
        lineOf(text, "<soap:header"),
      ].sort((a, b) => a - b),
    );
    expect(message).toMatch(/a repeated xs:choice \(maxOccurs="2"\) inside a sequence is not supported/);
    expect(message).toMatch(/style="rpc": only document\/literal is supported/);
    expect(message).toMatch(/header message AuthHeader of operation \w+ is not defined/);
    // One construct is one line, as before.
    expect(
      refusal(replaceOnce(lookup, soapOp[0], `<soap:operation soapAction="${soapOp[1]}" style="rpc"`)),
    ).not.toMatch(/\n/);
  });

  it("folds an rpc/encoded service into one line per construct", () => {
    let text = calc.replaceAll('style="document" />', 'style="rpc" />');
    text = text.replaceAll('<soap:body use="literal" />', '<soap:body use="encoded" />');
    const lines = refusal(text).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /<soap:operation>: 4 operations are style="rpc" \(Add, Subtract, Multiply, …\): only document\/literal is supported; they are left out of this report$/,
    );
    expect(lines[2]).toMatch(/<soap:body>: 4 operations are use="encoded" \(Add, Subtract, Multiply, …\)/);
  });

  it("reads a WSDL stored with blank lines before its XML declaration, lines unchanged", () => {
    const late = `\r\n\r\n${calc}`;
    const { spec, warnings } = importWsdl(late, { source: "x.wsdl" });
    expect(spec).toEqual(importWsdl(calc, { source: "x.wsdl" }).spec);
    expect(warnings[0]).toBe(
      "x.wsdl: the XML declaration is not at the start of the file; read as if it were",
    );
    const bad = replaceOnce(late, 'name="a" type="s:int"', 'name="a" type="s:duration"');
    expect(refusal(bad)).toMatch(new RegExp(`^x\\.wsdl:${lineOf(bad, "s:duration")}: `));
  });

  it("renames a record whose name is a type the generator makes, with a warning", () => {
    // Operation GetCountry returning a record named GetCountryResult: the generator's result type's name.
    let text = lookup.replaceAll('"tns:Country"', '"tns:GetCountryResult"');
    text = text.replaceAll('name="Country" nillable', 'name="GetCountryResult" nillable');
    text = replaceOnce(text, '<s:complexType name="Country">', '<s:complexType name="GetCountryResult">');
    const { spec, warnings } = importWsdl(text, { source: "x.wsdl" });
    expect(Object.keys(spec.records!)).toContain("GetCountryResult_");
    expect(Object.keys(spec.records!)).not.toContain("GetCountryResult");
    expect(JSON.stringify(spec)).not.toMatch(/"GetCountryResult(\[\])?"/);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /<s:complexType name="GetCountryResult">: complexType GetCountryResult is renamed GetCountryResult_: GetCountryResult is the name of a type the generator makes \(an operation's result\)/,
      ),
    );
  });

  it("imports XmlElement and XmlNode values (xs:any) as xmlElement and xmlNode (recorded from the ASMX host)", () => {
    const recorded = readFileSync(
      path.join(REPO, "test/asmx-host/recorded/constructs/AnyXml/service.wsdl"),
      "utf8",
    );
    // What is left refused: the record with [XmlAnyElement]/[XmlAnyAttribute] catch-alls, alone.
    expect(refusal(recorded)).toBe(
      `x.wsdl:${lineOf(recorded, "<s:anyAttribute />")}: <s:anyAttribute>: complexType Envelope: XML attributes (xs:anyAttribute) are not supported: the spec describes elements only`,
    );
    const { spec } = importWsdl(
      recorded.replace(
        /<s:any minOccurs="0" maxOccurs="unbounded" \/>\s*<\/s:sequence>\s*<s:anyAttribute \/>/,
        "</s:sequence>",
      ),
      { source: "x.wsdl" },
    );
    const ops = spec.groups[0]!.operations;
    expect(
      ops.map((o) => [o.name, (o.params ?? []).map((p) => `${p.name}: ${p.type}`), o.result?.type]),
    ).toEqual([
      ["GetElement", [], "xmlElement"],
      ["GetNode", [], "xmlNode"],
      ["DescribeElement", ["element: xmlElement"], "string"],
      ["EchoNode", ["node: xmlNode"], "xmlNode"],
      ["GetEnvelope", [], "Envelope"],
      ["EchoEnvelope", ["envelope: Envelope"], "Envelope"],
      ["EchoText", ["text: string"], "string"],
    ]);
    expect(spec.records!["Envelope"]!.fields).toEqual([
      { name: "Kind", type: "string" },
      { name: "Payload", type: "xmlElement" },
    ]);
  });

  it("imports derived types (xs:extension) as records with a base; abstract types only as bases", () => {
    const taxcloud = readFileSync(path.join(HERE, "corpus/taxcloud/service.wsdl"), "utf8");
    const { spec } = importWsdl(taxcloud, { source: "x.wsdl" });
    expect(spec.records!["VerifiedAddress"]).toEqual({
      doc: "Imported; describe it.",
      base: "Address",
      fields: [
        { name: "ErrNumber", type: "string" },
        { name: "ErrDescription", type: "string" },
      ],
    });
    expect(spec.records!["Address"]!.fields.map((f) => f.name)).toEqual([
      "Address1",
      "Address2",
      "City",
      "State",
      "Zip5",
      "Zip4",
    ]);
    // An extension without fields of its own.
    expect(spec.records!["AuthorizedRsp"]).toEqual({
      doc: "Imported; describe it.",
      base: "ResponseBase",
      fields: [],
    });

    // Recorded from the ASMX host: the abstract Shape is refused wherever it is a value's type (its values
    // are always of a derived type), and accepted as Circle's base; Truck, only [XmlInclude]d, is left out.
    const recorded = readFileSync(
      path.join(REPO, "test/asmx-host/recorded/constructs/DerivedTypes/service.wsdl"),
      "utf8",
    );
    const lines = refusal(recorded).split("\n");
    expect(lines[0]).toBe("x.wsdl: 3 constructs the spec cannot describe:");
    expect(lines.slice(1).map((l) => l.replace(/^ *x\.wsdl:\d+: /, ""))).toEqual([
      '<s:element name="GetShapeResult">: result of GetShape is of the abstract type Shape: its values are always of a derived type (xsi:type), which is not supported',
      '<s:element name="shape">: parameter shape of Area is of the abstract type Shape: its values are always of a derived type (xsi:type), which is not supported',
      '<s:element name="Shape">: the items of ArrayOfShape is of the abstract type Shape: its values are always of a derived type (xsi:type), which is not supported',
    ]);
  });

  it("imports overloads as operations named by their MessageName (recorded from the ASMX host)", () => {
    const recorded = readFileSync(
      path.join(REPO, "test/asmx-host/recorded/constructs/Overloads/service.wsdl"),
      "utf8",
    );
    const { spec, warnings } = importWsdl(recorded, { source: "x.wsdl" });
    expect(warnings).toEqual([]);
    const ops = spec.groups[0]!.operations;
    expect(
      ops.map((o) => [
        o.name,
        o.messageName,
        (o.params ?? []).map((p) => `${p.name}: ${p.type}`),
        o.result?.type,
      ]),
    ).toEqual([
      ["Add", undefined, ["a: int", "b: int"], "int"],
      ["AddDoubles", undefined, ["a: double", "b: double"], "double"],
      ["AddThree", undefined, ["a: int", "b: int", "c: int"], "int"],
      // A MessageName with a dot keeps the method's name, as .NET's proxies (`Ping()`), and its wire name.
      ["Ping", "Service.Ping", [], "string"],
    ]);
  });

  it("names a dotted MessageName after it when its method's name is another operation's", () => {
    const recorded = readFileSync(
      path.join(REPO, "test/asmx-host/recorded/constructs/Overloads/service.wsdl"),
      "utf8",
    );
    // Ping's method renamed Add: an overload of Add whose MessageName is Service.Ping.
    const text = recorded.replaceAll('<wsdl:operation name="Ping">', '<wsdl:operation name="Add">');
    const { spec, warnings } = importWsdl(text, { source: "x.wsdl" });
    expect(spec.groups[0]!.operations.map((o) => [o.name, o.messageName])).toEqual([
      ["Add", undefined],
      ["AddDoubles", undefined],
      ["AddThree", undefined],
      ["Service_Ping", "Service.Ping"],
    ]);
    expect(warnings).toEqual([
      `x.wsdl:${lineOf(text, '<wsdl:input name="Service.Ping"')}: <wsdl:input name="Service.Ping">: operation Service.Ping is named Service_Ping in the spec (Add, its method's name, is another operation's)`,
    ]);
    // A MessageName no path or SOAPAction carries as it is: refused, alone.
    const bad = recorded.replaceAll("Service.Ping", "Service:Ping");
    expect(refusal(bad)).toBe(
      `x.wsdl:${lineOf(bad, '<wsdl:input name="Service:Ping"')}: <wsdl:input name="Service:Ping">: the MessageName of Ping (its name on the wire), "Service:Ping", is not a name the spec can hold (a letter or underscore, then letters, digits, underscores, dots or hyphens)`,
    );
  });

  it("names the spec cannot hold", () => {
    let text = replaceOnce(calc, 'name="a" type="s:int"', 'name="first-a" type="s:int"');
    expect(refusal(text)).toBe(
      `x.wsdl:${lineOf(text, 'name="first-a"')}: <s:element name="first-a">: a parameter name of Add, "first-a", is not a name the spec can hold (a letter or underscore, then letters, digits or underscores)`,
    );
    text = lookup
      .replaceAll('"tns:City"', '"tns:Ville.City"')
      .replace('<s:complexType name="City">', '<s:complexType name="Ville.City">');
    expect(refusal(text)).toMatch(
      /<s:complexType name="Ville.City">: a record name, "Ville.City", is not a name the spec can hold/,
    );
    text = lookup
      .replaceAll('"tns:City"', '"tns:guid"')
      .replace('<s:complexType name="City">', '<s:complexType name="guid">');
    expect(refusal(text)).toMatch(
      /<s:complexType name="guid">: a record name, "guid", is also the name of a scalar type in the spec/,
    );
  });

  it("stays linear on a large record used many times", () => {
    const fields = Array.from(
      { length: 20_000 },
      (_, k) => `<s:element minOccurs="1" maxOccurs="1" name="F${k}" type="s:int" />`,
    ).join("");
    const params = Array.from(
      { length: 20_000 },
      (_, k) => `<s:element minOccurs="0" maxOccurs="1" name="p${k}" type="tns:Big" />`,
    ).join("");
    let text = replaceOnce(
      calc,
      '<s:element minOccurs="1" maxOccurs="1" name="a" type="s:int" />\r\n            <s:element minOccurs="1" maxOccurs="1" name="b" type="s:int" />',
      params,
    );
    text = replaceOnce(
      text,
      "</s:schema>",
      `<s:complexType name="Big"><s:sequence>${fields}</s:sequence></s:complexType></s:schema>`,
    );
    const started = performance.now();
    const { spec } = importWsdl(text, { source: "x.wsdl" });
    expect(performance.now() - started).toBeLessThan(15_000); // quadratic work would take minutes
    expect(spec.records!.Big!.fields).toHaveLength(20_000);
    expect(spec.groups[0]!.operations[0]!.params).toHaveLength(20_000);
  });

  it("answers mutated WSDLs with a spec or an ImportError, never anything else", () => {
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let imported = 0;
    let refused = 0;
    for (const name of SHAPES) {
      const text = fixture(`${name}.wsdl`);
      const lines = text.split("\r\n");
      const attrs = [...text.matchAll(/ [a-zA-Z:]+="[^"]*"/g)].map((m) => m[0]);
      for (let i = 0; i < 150; i++) {
        const l = [...lines];
        const k = random(l.length);
        const j = random(l.length);
        switch (random(5)) {
          case 0:
            l.splice(k, 1);
            break;
          case 1:
            l.splice(k, 0, l[j]!);
            break;
          case 2:
            l[k] = l[k]!.replace(/ [a-zA-Z:]+="[^"]*"/, attrs[random(attrs.length)]!);
            break;
          case 3:
            l[k] = l[k]!.replace(/ [a-zA-Z:]+="[^"]*"/, "");
            break;
          default:
            [l[k], l[j]] = [l[j]!, l[k]!];
        }
        try {
          const result = importWsdl(l.join("\r\n"), { source: "m.wsdl" });
          specToYaml(result.spec, { source: "m.wsdl", warnings: result.warnings }); // reads back or throws
          imported++;
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          expect(e.message).toMatch(/^m\.wsdl(:\d+: <[^>]+>)?: /);
          refused++;
        }
      }
    }
    expect(imported).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it("bounds depth and node count of the input", () => {
    const deep = `<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${"<a>".repeat(100)}${"</a>".repeat(100)}</wsdl:definitions>`;
    expect(refusal(deep)).toMatch(/not a well-formed XML document the reader accepts: .*/);
    const wide = `<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${"<a/>".repeat(200_001)}</wsdl:definitions>`;
    expect(refusal(wide)).toMatch(/more than 200000 elements/);
  });

  it("warns about what it drops", () => {
    let text = replaceOnce(
      calc,
      '<wsdl:output message="tns:AddSoapOut" />',
      '<wsdl:output message="tns:AddSoapOut" />\r\n      <wsdl:fault name="Oops" message="tns:AddSoapOut" />',
    );
    let result = importWsdl(text, { source: "x.wsdl" });
    expect(result.warnings).toEqual([
      `x.wsdl:${lineOf(text, "<wsdl:fault")}: <wsdl:fault name="Oops">: the fault of operation Add is dropped (ASMX reports faults as SOAP faults)`,
    ]);
    text = replaceOnce(
      calc,
      '<s:element minOccurs="1" maxOccurs="1" name="a" type="s:int" />',
      '<s:element minOccurs="0" maxOccurs="1" name="a" type="s:int" />',
    );
    result = importWsdl(text, { source: "x.wsdl" });
    expect(result.warnings).toEqual([
      `x.wsdl:${lineOf(text, 'minOccurs="0" maxOccurs="1" name="a"')}: <s:element name="a">: parameter a of Add is an optional value type (minOccurs="0", a default value or a Specified member in .NET); imported as always sent`,
    ]);
    text = replaceOnce(calc, "<http:urlEncoded />", "<http:urlReplacement />");
    text = replaceOnce(
      text,
      '<http:operation location="/Subtract" />',
      '<http:operation location="/minus" />',
    );
    result = importWsdl(text, { source: "x.wsdl" });
    expect(result.warnings).toEqual([
      `x.wsdl:${lineOf(text, "<http:urlReplacement")}: <http:urlReplacement>: operation Add: the httpGet input is http:urlReplacement; the generated binding uses http:urlEncoded`,
      `x.wsdl:${lineOf(text, '"/minus"')}: <http:operation>: operation Subtract is at location "/minus"; the generated httpGet binding serves it at /Subtract`,
    ]);
    text = replaceOnce(
      calc,
      "</s:schema>",
      '  <s:complexType name="Unused"><s:sequence /></s:complexType>\r\n    </s:schema>',
    );
    result = importWsdl(text, { source: "x.wsdl" });
    expect(result.warnings).toEqual([
      `x.wsdl:${lineOf(text, '"Unused"')}: <s:complexType name="Unused">: complexType Unused is not used by any operation; left out`,
    ]);
  });

  it("writes scalars YAML cannot misread", () => {
    for (const s of [
      "true",
      "No",
      "null",
      "~",
      "1.5",
      "0x10",
      ".inf",
      "-1",
      "a: b",
      "a #b",
      "[x]",
      "x,y",
      "'q'",
      "",
      " lead",
      "trail ",
      "é",
      "a\nb",
    ]) {
      expect(parse(`v: ${scalar(s)}`)).toEqual({ v: s });
      expect(parse(`v: { w: ${scalar(s)} }`)).toEqual({ v: { w: s } });
    }
    expect(scalar("Imported; describe it.")).toBe("Imported; describe it.");
    expect(scalar("int[]")).toBe('"int[]"');
  });
});

describe("easgen import: from a URL (127.0.0.1 only)", () => {
  let server: Server;
  let base: string;
  const wsdl = fixture("calculator.wsdl");
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/Calculator.asmx?WSDL") {
        res.writeHead(200, {
          "content-type": "text/xml; charset=utf-8",
          "content-length": Buffer.byteLength(wsdl),
        });
        res.end(wsdl);
      } else if (req.url === "/big") {
        res.writeHead(200, { "content-type": "text/xml" }); // chunked: no content-length
        res.write("<a>");
        res.end("x".repeat(5000));
      } else if (req.url === "/slow") {
        res.writeHead(200, { "content-type": "text/xml" });
        res.write("<a>"); // never ends
      } else if (req.url === "/moved") {
        res.writeHead(302, { location: "/Calculator.asmx?WSDL" });
        res.end();
      } else {
        res.writeHead(404);
        res.end("no");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fetches ?WSDL and imports it as from the file", async () => {
    const url = `${base}/Calculator.asmx?WSDL`;
    const { yaml } = await importToYaml(url);
    expect(
      yaml
        .replace(`"Imported from ${url}; describe it."`, "Imported from calculator.wsdl; describe it.")
        .replaceAll(url, "calculator.wsdl"),
    ).toBe(fixture("calculator.expected.yaml"));
    expect(yaml).toContain(`doc: "Imported from ${url}; describe it."`);
    const moved = await importToYaml(`${base}/moved`);
    expect(moved.spec.service.name).toBe("Calculator");
  });

  it("refuses other schemes, error statuses, oversize and slow answers", async () => {
    await expect(importToYaml("ftp://127.0.0.1/x.wsdl")).rejects.toThrow(
      "only http and https URLs can be fetched, not ftp",
    );
    await expect(importToYaml("file:///etc/passwd")).rejects.toThrow(
      "only http and https URLs can be fetched, not file",
    );
    await expect(importToYaml(`${base}/nothing`)).rejects.toThrow(
      `${base}/nothing: the server answered HTTP 404, not 200`,
    );
    await expect(importToYaml(`${base}/Calculator.asmx?WSDL`, { maxBytes: 1000 })).rejects.toThrow(
      `the answer is ${Buffer.byteLength(wsdl)} bytes, over the limit of 1000`,
    );
    await expect(importToYaml(`${base}/big`, { maxBytes: 1000 })).rejects.toThrow(
      "the answer is over the limit of 1000 bytes",
    );
    const started = Date.now();
    await expect(importToYaml(`${base}/slow`, { timeoutMs: 300 })).rejects.toThrow(
      /did not complete within 300 ms|no answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/** A fixture's YAML as the command writes it at `out`: its schema reference relative to there. */
function withSchema(yaml: string, out: string): string {
  const schema = path
    .relative(path.dirname(out), path.join(REPO, "spec", "service.schema.json"))
    .split(path.sep)
    .join("/");
  return yaml.replace("$schema=./service.schema.json", `$schema=${schema}`);
}

describe("easgen import: the command", () => {
  it("points the spec's schema reference at the schema of the easgen that wrote it", () => {
    expect(schemaReference(path.join(REPO, "spec", "New.yaml"))).toBe("./service.schema.json");
    expect(schemaReference(path.join(REPO, "examples", "x", "spec", "New.yaml"))).toBe(
      "../../../spec/service.schema.json",
    );
  });

  it("runs from the CLI: easgen import --wsdl --out [--credentials]", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "easgen-import-"));
    try {
      const out = path.join(dir, "Calc.yaml");
      const run = (...args: string[]) =>
        spawnSync(process.execPath, ["--import", "tsx", "generator/cli.ts", "import", ...args], {
          cwd: REPO,
          encoding: "utf8",
        });
      let r = run("--wsdl", "test/import/fixtures/calculator.wsdl", "--out", out);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(withSchema(fixture("calculator.expected.yaml"), out));
      r = run(
        "--wsdl",
        "test/import/fixtures/calculator.wsdl",
        "--out",
        out,
        "--force",
        "--credentials",
        "a,b",
      );
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        "easgen import: calculator.wsdl: --credentials: a is int in Add but double in Multiply\n",
      );
      r = run("--out", out);
      expect(r.status).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe("easgen import: missing --wsdl");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes the spec, refuses to overwrite without --force, reports errors with exit 1", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "easgen-import-"));
    try {
      const out = path.join(dir, "spec", "Calculator.yaml");
      const lines: string[] = [];
      const io = { out: (l: string) => lines.push(`out ${l}`), err: (l: string) => lines.push(`err ${l}`) };
      expect(await importCommand({ wsdl: path.join(FIXTURES, "calculator.wsdl"), out }, io)).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(withSchema(fixture("calculator.expected.yaml"), out));
      expect(lines).toEqual([
        `out easgen import: wrote ${out} (4 operations, 0 records, 0 enums, bindings soap11, soap12, httpGet, httpPost)`,
      ]);
      lines.length = 0;
      expect(await importCommand({ wsdl: path.join(FIXTURES, "lookup.wsdl"), out }, io)).toBe(1);
      expect(lines).toEqual([
        `err easgen import: ${out} exists; pass --force to overwrite it (it may hold hand edits)`,
      ]);
      lines.length = 0;
      expect(await importCommand({ wsdl: path.join(FIXTURES, "lookup.wsdl"), out, force: true }, io)).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(withSchema(fixture("lookup.expected.yaml"), out));
      lines.length = 0;
      expect(
        await importCommand(
          { wsdl: path.join(REPO, "generated/ExternalAPIService.wsdl"), out, force: true },
          io,
        ),
      ).toBe(0);
      // DataSet results are untyped: nothing to warn about.
      expect(lines.filter((l) => l.startsWith("err"))).toEqual([]);
      expect(lines.filter((l) => l.startsWith("out")).map((l) => l.replace(out, "OUT"))).toEqual([
        "out easgen import: wrote OUT (20 operations, 6 records, 0 enums, bindings soap11, soap12, httpGet, httpPost)",
      ]);
      lines.length = 0;
      expect(await importCommand({ wsdl: path.join(dir, "missing.wsdl"), out, force: true }, io)).toBe(1);
      expect(lines).toEqual([
        `err easgen import: ${path.join(dir, "missing.wsdl")}: cannot read the file (ENOENT)`,
      ]);
      lines.length = 0;
      writeFileSync(path.join(dir, "big.wsdl"), "x".repeat(2000));
      expect(
        await importCommand({ wsdl: path.join(dir, "big.wsdl"), out, force: true, maxBytes: 1000 }, io),
      ).toBe(1);
      expect(lines).toEqual([
        `err easgen import: ${path.join(dir, "big.wsdl")}: 2000 bytes, over the limit of 1000`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
