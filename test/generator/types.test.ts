// The types of issue 11 end to end on the generator side: test/generator/fixtures/types.yaml (every scalar,
// an enum, nullable values, arrays of scalars, enums and records, nested records, records as parameters and
// results, void and one-way) validates, normalizes to the model contract, generates TypeScript that
// type-checks under the generated tsconfig's strict flags, and a WSDL declaring each type as .NET does.

import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateFiles } from "../../generator/generate.js";
import type { ArrayTypeModel, OperationModel, RecordModel, ServiceModel } from "../../runtime/model.js";
import { modelOf, REPO, removeTempDirs, SMALL_SPEC, tempDir, validateText } from "./fixtures/index.js";

const TYPES_SPEC = fileURLToPath(new URL("./fixtures/types.yaml", import.meta.url));
const TYPES_TEXT = readFileSync(TYPES_SPEC, "utf8");

afterAll(removeTempDirs);

let model: ServiceModel | undefined;

function op(name: string): OperationModel {
  model ??= modelOf(TYPES_TEXT);
  const found = model.operations.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
}

describe("the types fixture", () => {
  it("validates", () => {
    expect(validateText(TYPES_TEXT, "test/generator/fixtures/types.yaml")).toEqual([]);
  });

  it("normalizes each parameter's type to a TypeModel", () => {
    const add = op("Add");
    expect(add.params.map((p) => [p.name, p.type, p.nullable, p.required])).toEqual([
      ["a", { kind: "scalar", type: "int" }, undefined, true],
      ["b", { kind: "scalar", type: "float" }, undefined, true],
      // A nullable value type may be nil, so it is not required.
      ["maybe", { kind: "scalar", type: "int" }, true, false],
    ]);
    const sum = op("Sum");
    expect(sum.params[0]!.type).toEqual({
      kind: "array",
      item: { kind: "scalar", type: "int" },
      itemElement: "int",
      typeName: "ArrayOfInt",
    });
    const colors = sum.params[1]!.type as ArrayTypeModel;
    expect([colors.itemElement, colors.typeName]).toEqual(["Color", "ArrayOfColor"]);
    expect(colors.item).toEqual({ kind: "enum", enum: { name: "Color", values: ["Red", "Green", "Blue"] } });
    expect(op("Hello").params[2]!.type.kind).toBe("enum");
    expect(op("People").params[0]!.type.kind).toBe("record");
    // Reference types are optional unless the spec says required.
    expect(op("Find").params.map((p) => [p.name, p.required])).toEqual([
      ["id", true],
      ["initial", true],
      ["photo", false],
      ["big", true],
    ]);
  });

  it("normalizes every result form", () => {
    expect(op("Echo").result.kind).toBe("record");
    expect(op("Add").result).toEqual({ kind: "scalar", type: "double" });
    expect(op("Hello").result).toEqual({ kind: "scalar", type: "string" });
    expect(op("Names").result).toEqual({
      kind: "array",
      item: { kind: "scalar", type: "string" },
      itemElement: "string",
      typeName: "ArrayOfString",
    });
    expect(op("Colors").result).toMatchObject({
      kind: "array",
      itemElement: "Color",
      typeName: "ArrayOfColor",
    });
    expect(op("FavoriteColor").result).toMatchObject({ kind: "enum", enum: { name: "Color" } });
    // An array of records is the list result the runtime already writes.
    expect(op("People").result).toMatchObject({ kind: "list", record: { name: "Person" } });
    expect(op("Bytes").result).toEqual({ kind: "scalar", type: "base64Binary" });
    expect(op("Reset").result).toEqual({ kind: "void" });
    expect(op("Notify").result).toEqual({ kind: "oneWay" });
    expect(op("Legacy").result).toEqual({ kind: "scalar", type: "int" });
  });

  it("builds each record once: a nested record is the object the service lists", () => {
    const model = modelOf(TYPES_TEXT);
    const byName = new Map<string, RecordModel>(model.records.map((r) => [r.name, r]));
    const person = byName.get("Person")!;
    const home = person.fields.find((f) => f.name === "Home")!.type;
    expect(home.kind === "record" && home.record).toBe(byName.get("Address"));
    const others = person.fields.find((f) => f.name === "Others")!.type as ArrayTypeModel;
    expect(others.item.kind === "record" && others.item.record).toBe(byName.get("Address"));
    expect(others.typeName).toBe("ArrayOfAddress");
    expect(byName.get("Address")!.fields.find((f) => f.name === "Zip")).toEqual({
      name: "Zip",
      type: { kind: "scalar", type: "int" },
      nullable: true,
    });
    expect(model.enums).toEqual([{ name: "Color", values: ["Red", "Green", "Blue"] }]);
    // The enum in a record field and in a parameter is the service's one enum object.
    const color = byName.get("Address")!.fields.find((f) => f.name === "Color")!.type;
    expect(color.kind === "enum" && color.enum).toBe(model.enums[0]);
  });
});

describe("generating the types fixture", () => {
  let generated: Awaited<ReturnType<typeof generateFiles>> | undefined;
  const files = async (): Promise<Map<string, string>> => {
    generated ??= await generateFiles({ spec: TYPES_SPEC });
    if (!generated.ok) throw new Error(JSON.stringify(generated.diagnostics));
    return new Map(generated.files.map((f) => [f.path, f.content]));
  };

  it("writes the TypeScript types of the plan's table", async () => {
    const types = (await files()).get("types.ts")!;
    const code = types.replace(/\/\*\*[\s\S]*?\*\/\n/g, "");
    expect(code).toContain('export type Color = "Red" | "Green" | "Blue";');
    for (const line of [
      "S?: string;",
      "B: boolean;",
      "F: number;",
      "D: number;",
      "M: string;",
      "T: string;",
      "SB: number;",
      "UB: number;",
      "I16: number;",
      "U16: number;",
      "I32: number;",
      "U32: number;",
      "I64: bigint;",
      "U64: bigint;",
      "Bytes?: Uint8Array;",
      "G: string;",
      "C: string;",
      "Zip: number | null;",
      "Tags?: (string | null)[];",
      "Color: Color;",
      "Home?: Address;",
      "Others?: (Address | null)[];",
      "Born: string | null;",
      "maybe?: number | null;",
      "ids?: readonly number[];",
      // A record result may be null (.NET leaves it out); string and record items may be nil.
      "export type FindResult = Person | null;",
      "export type EchoResult = Scalars | null;",
      "colors?: readonly Color[];",
      "filter?: Address;",
      "photo?: Uint8Array;",
      "big: bigint;",
      "export type HelloResult = string | null;",
      "export type NamesResult = (string | null)[];",
      "export type ColorsResult = Color[];",
      "export type FavoriteColorResult = Color;",
      "export type PeopleResult = (Person | null)[];",
      "export type BytesResult = Uint8Array | null;",
      "export type ResetResult = void;",
      "export type NotifyResult = void;",
    ]) {
      expect(code).toContain(line);
    }
  });

  it("shares one type model per scalar type in the client's model", async () => {
    const model = (await files()).get("model.ts")!;
    expect(model).toMatch(
      /const scalars = \{\n {2}base64Binary: \{ kind: "scalar", type: "base64Binary" \},/,
    );
    expect(model).toContain('["a", scalars.int]');
    // A record held by another record is its own constant, declared before the record holding it.
    expect(model.indexOf("const record$Address = {")).toBeGreaterThan(0);
    expect(model.indexOf("const record$Address = {")).toBeLessThan(
      model.indexOf("const records = /* @__PURE__ */ clientRecords({"),
    );
    // Records in the compact form: a field as a parameter is written (a string field by its name alone).
    expect(model).toContain('["B", scalars.boolean]');
    expect(model).toContain('{ name: "Home", type: { kind: "record", record: record$Address } }');
    // A record that holds itself (Person.Reports) refers to its own constant through a getter.
    expect(model).toMatch(/get record\(\): RecordModel \{\n\s+return record\$Person;/);
    expect(model).toContain('{ kind: "oneWay" }],');
    // The service uses float, guid, ...: its model registers their codecs (a service without them does not).
    expect(model).toContain('import { extraScalarCodecs } from "./runtime/codec/values-extra.js";');
    expect(model).toContain("registerScalarCodecs(extraScalarCodecs);");
    const small = await generateFiles({ spec: SMALL_SPEC });
    expect(small.ok && small.files.find((f) => f.path === "model.ts")!.content).not.toContain("values-extra");
    expect(model).toContain('{ kind: "void" }],');
  });

  it("type-checks under the generated tsconfig, with code using the types", async () => {
    const dir = tempDir();
    for (const [file, content] of await files()) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
    writeFileSync(
      path.join(dir, "use.ts"),
      [
        'import type { AddParams, Address, FindParams, Person, SumParams } from "./types.js";',
        'const address: Address = { Street: "Main", Zip: null, Tags: ["a"], Color: "Green" };',
        'const person: Person = { Name: "Ann", Home: address, Others: [address], Born: null, Id: "0f8fad5b-d9cb-469f-a165-70867728950e" };',
        "const add: AddParams = { a: 1, b: 0.5, maybe: null };",
        'const sum: SumParams = { ids: [1, 2], colors: ["Red", "Blue"] };',
        'const find: FindParams = { id: person.Id, initial: "A", photo: new Uint8Array([1]), big: 18446744073709551615n };',
        // A record that holds itself (Person.Reports: Person[]).
        "const boss: Person = { ...person, Reports: [person, null, { ...person, Reports: [] }] };",
        "export const count: number = [address, person, boss, add, sum, find].length;",
        "",
      ].join("\n"),
    );
    const tsc = path.join(REPO, "node_modules/typescript/bin/tsc");
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [tsc, "-p", "tsconfig.json", "--pretty", "false"],
        { cwd: dir },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    expect(output).toBe("");
  }, 120_000);

  it("writes a WSDL declaring every type as .NET does", async () => {
    const wsdl = (await files()).get("TypeZoo.wsdl")!;
    const has = (text: string): void => expect(wsdl).toContain(text);
    has(
      ' xmlns:tns="urn:example:types" xmlns:s1="http://microsoft.com/wsdl/types/" xmlns:s="http://www.w3.org/2001/XMLSchema"',
    );
    has(' xmlns:s2="urn:example:types/AbstractTypes" xmlns:http=');
    has('      <s:import namespace="http://microsoft.com/wsdl/types/" />\n');
    // Value types required, reference types optional, nullable value types nillable.
    has(
      [
        '            <s:element minOccurs="1" maxOccurs="1" name="a" type="s:int" />',
        '            <s:element minOccurs="1" maxOccurs="1" name="b" type="s:float" />',
        '            <s:element minOccurs="1" maxOccurs="1" name="maybe" nillable="true" type="s:int" />',
      ].join("\n"),
    );
    has(
      [
        '            <s:element minOccurs="1" maxOccurs="1" name="id" type="s1:guid" />',
        '            <s:element minOccurs="1" maxOccurs="1" name="initial" type="s1:char" />',
        '            <s:element minOccurs="0" maxOccurs="1" name="photo" type="s:base64Binary" />',
        '            <s:element minOccurs="1" maxOccurs="1" name="big" type="s:unsignedLong" />',
      ].join("\n"),
    );
    // Arrays: value-type items are not nillable, strings and records are.
    has(
      [
        '      <s:complexType name="ArrayOfInt">',
        "        <s:sequence>",
        '          <s:element minOccurs="0" maxOccurs="unbounded" name="int" type="s:int" />',
        "        </s:sequence>",
        "      </s:complexType>",
        '      <s:complexType name="ArrayOfColor">',
        "        <s:sequence>",
        '          <s:element minOccurs="0" maxOccurs="unbounded" name="Color" type="tns:Color" />',
        "        </s:sequence>",
        "      </s:complexType>",
        '      <s:simpleType name="Color">',
        '        <s:restriction base="s:string">',
        '          <s:enumeration value="Red" />',
        '          <s:enumeration value="Green" />',
        '          <s:enumeration value="Blue" />',
        "        </s:restriction>",
        "      </s:simpleType>",
      ].join("\n"),
    );
    has(
      '          <s:element minOccurs="0" maxOccurs="unbounded" name="string" nillable="true" type="s:string" />',
    );
    has(
      '          <s:element minOccurs="0" maxOccurs="unbounded" name="Person" nillable="true" type="tns:Person" />',
    );
    // A nested record: the container first, then what it holds.
    has(
      [
        '      <s:complexType name="Person">',
        "        <s:sequence>",
        '          <s:element minOccurs="0" maxOccurs="1" name="Name" type="s:string" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="Home" type="tns:Address" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="Others" type="tns:ArrayOfAddress" />',
        '          <s:element minOccurs="1" maxOccurs="1" name="Born" nillable="true" type="s:dateTime" />',
        '          <s:element minOccurs="1" maxOccurs="1" name="Id" type="s1:guid" />',
        '          <s:element minOccurs="0" maxOccurs="1" name="Reports" type="tns:ArrayOfPerson" />',
        "        </s:sequence>",
        "      </s:complexType>",
        '      <s:complexType name="ArrayOfAddress">',
      ].join("\n"),
    );
    // void: an empty response element; one-way: none, and no output message on SOAP.
    has('      <s:element name="ResetResponse">\n        <s:complexType />\n      </s:element>\n');
    expect(wsdl).not.toContain("NotifyResponse");
    expect(wsdl).not.toContain("NotifySoapOut");
    has('      <wsdl:input message="tns:NotifySoapIn" />\n    </wsdl:operation>');
    // Each named type is declared once.
    for (const name of ["ArrayOfString", "Address", "Color", "ArrayOfColor"]) {
      expect(wsdl.split(`name="${name}">`).length - 1).toBe(1);
    }
    // HTTP: array parameters are soapenc string arrays; record parameters keep the operation off HTTP.
    has(
      '  <wsdl:message name="SumHttpGetIn">\n    <wsdl:part name="ids" type="s2:StringArray" />\n    <wsdl:part name="colors" type="s2:StringArray" />\n',
    );
    expect(wsdl).not.toContain("EchoHttpGet");
    expect(wsdl).not.toContain("PeopleHttpPost");
    has('  <wsdl:message name="ResetHttpGetOut" />\n');
    // The HTTP answers' roots: reference types nillable, value types not.
    has('      <s:element name="string" nillable="true" type="s:string" />\n');
    has('      <s:element name="Color" type="tns:Color" />\n');
    has('      <s:element name="ArrayOfColor" nillable="true" type="tns:ArrayOfColor" />\n');
    // The microsoft types schema, after the service's own.
    has(
      [
        '    <s:schema elementFormDefault="qualified" targetNamespace="http://microsoft.com/wsdl/types/">',
        '      <s:simpleType name="guid">',
        '        <s:restriction base="s:string">',
        '          <s:pattern value="[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}" />',
        "        </s:restriction>",
        "      </s:simpleType>",
        '      <s:simpleType name="char">',
        '        <s:restriction base="s:unsignedShort" />',
        "      </s:simpleType>",
        "    </s:schema>",
        "  </wsdl:types>",
      ].join("\n"),
    );
  });
});
