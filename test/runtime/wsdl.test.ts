// The WSDL renderer (runtime/server/wsdl.ts) read through an XML parser: the shape .NET publishes for the real
// spec, element by element. documents.test.ts holds the exact bytes (golden files) and the served form.

import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { OperationModel, ServiceModel } from "../../runtime/model.js";
import { scalarTypeOf } from "../../runtime/codec/values.js";
import { renderWsdl } from "../../runtime/server/wsdl.js";
import { hostileDocs, hostileModel, serviceDocs, serviceModel } from "../generator/emit/models.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REPEATED = new Set([
  "wsdl:message",
  "wsdl:part",
  "wsdl:portType",
  "wsdl:binding",
  "wsdl:operation",
  "wsdl:port",
  "s:element",
  "s:complexType",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  isArray: (name) => REPEATED.has(name),
});

function definitions(wsdl: string): Node {
  return parser.parse(wsdl)["wsdl:definitions"];
}

const model = serviceModel();
const docs = serviceDocs();
const ns = model.namespace;
const address = "http://localhost/ExternalAPIService.asmx";
const wsdl = renderWsdl(model, docs, address);
const defs = definitions(wsdl);
const schema: Node = defs["wsdl:types"]["s:schema"];
const opNames = model.operations.map((op) => op.name);

const named = (nodes: Node[], name: string): Node => {
  const node = nodes.find((n) => n["@name"] === name);
  if (node === undefined) throw new Error(`no node named ${name}`);
  return node;
};
const element = (name: string) => named(schema["s:element"], name);
const complexType = (name: string) => named(schema["s:complexType"], name);
const message = (name: string) => named(defs["wsdl:message"], name);
const sequence = (node: Node): Node[] => node["s:complexType"][0]["s:sequence"]["s:element"];

describe("renderWsdl document", () => {
  it("starts with the XML declaration and binds the prefixes .NET uses", () => {
    expect(wsdl.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<wsdl:definitions ')).toBe(true);
    expect(defs).toMatchObject({
      "@xmlns:wsdl": "http://schemas.xmlsoap.org/wsdl/",
      "@xmlns:soap": "http://schemas.xmlsoap.org/wsdl/soap/",
      "@xmlns:soap12": "http://schemas.xmlsoap.org/wsdl/soap12/",
      "@xmlns:http": "http://schemas.xmlsoap.org/wsdl/http/",
      "@xmlns:mime": "http://schemas.xmlsoap.org/wsdl/mime/",
      "@xmlns:tm": "http://microsoft.com/wsdl/mime/textMatching/",
      "@xmlns:soapenc": "http://schemas.xmlsoap.org/soap/encoding/",
      "@xmlns:s": "http://www.w3.org/2001/XMLSchema",
      "@xmlns:tns": ns,
      "@targetNamespace": ns,
    });
    expect(schema).toMatchObject({ "@elementFormDefault": "qualified", "@targetNamespace": ns });
  });

  it("indents with two spaces and is the same on every run", () => {
    const indents = wsdl.split("\n").map((line) => /^ */.exec(line)![0].length);
    expect(indents.every((n) => n % 2 === 0)).toBe(true);
    expect(renderWsdl(model, docs, address)).toBe(wsdl);
  });

  it("describes every operation of the spec in each portType and binding, in spec order", () => {
    expect(opNames).toEqual(SPEC_OPERATIONS);
    const portTypes: Node[] = defs["wsdl:portType"];
    expect(portTypes.map((p) => p["@name"])).toEqual([
      "ExternalAPIServiceSoap",
      "ExternalAPIServiceHttpGet",
      "ExternalAPIServiceHttpPost",
    ]);
    const bindings: Node[] = defs["wsdl:binding"];
    expect(bindings.map((b) => [b["@name"], b["@type"]])).toEqual([
      ["ExternalAPIServiceSoap", "tns:ExternalAPIServiceSoap"],
      ["ExternalAPIServiceSoap12", "tns:ExternalAPIServiceSoap"],
      ["ExternalAPIServiceHttpGet", "tns:ExternalAPIServiceHttpGet"],
      ["ExternalAPIServiceHttpPost", "tns:ExternalAPIServiceHttpPost"],
    ]);
    for (const owner of [...portTypes, ...bindings]) {
      expect(owner["wsdl:operation"].map((o: Node) => o["@name"])).toEqual(opNames);
    }
  });

  it("documents each operation and wires its messages in every portType", () => {
    for (const portType of defs["wsdl:portType"] as Node[]) {
      const suffix = (portType["@name"] as string).replace("ExternalAPIService", "");
      for (const [i, op] of model.operations.entries()) {
        const operation = portType["wsdl:operation"][i];
        expect(operation["wsdl:documentation"]["#text"]).toBe(docs.operations[op.name]!.doc);
        expect(operation["wsdl:input"]["@message"]).toBe(`tns:${op.name}${suffix}In`);
        expect(operation["wsdl:output"]["@message"]).toBe(`tns:${op.name}${suffix}Out`);
      }
    }
  });

  it("gives every SOAP operation the soapAction {namespace}{Op}, document style, literal bodies", () => {
    for (const [binding, prefix] of [
      [named(defs["wsdl:binding"], "ExternalAPIServiceSoap"), "soap"],
      [named(defs["wsdl:binding"], "ExternalAPIServiceSoap12"), "soap12"],
    ] as const) {
      expect(binding[`${prefix}:binding`]["@transport"]).toBe("http://schemas.xmlsoap.org/soap/http");
      const operations: Node[] = binding["wsdl:operation"];
      expect(operations.map((o) => o[`${prefix}:operation`]["@soapAction"])).toEqual(
        opNames.map((n) => ns + n),
      );
      for (const operation of operations) {
        expect(operation[`${prefix}:operation`]["@style"]).toBe("document");
        expect(operation["wsdl:input"][`${prefix}:body`]["@use"]).toBe("literal");
        expect(operation["wsdl:output"][`${prefix}:body`]["@use"]).toBe("literal");
      }
    }
  });

  it("binds HTTP GET with urlEncoded input and HTTP POST with form content, both answering mimeXml Body", () => {
    const get = named(defs["wsdl:binding"], "ExternalAPIServiceHttpGet");
    const post = named(defs["wsdl:binding"], "ExternalAPIServiceHttpPost");
    expect(get["http:binding"]["@verb"]).toBe("GET");
    expect(post["http:binding"]["@verb"]).toBe("POST");
    for (const [i, name] of opNames.entries()) {
      for (const binding of [get, post]) {
        const operation = binding["wsdl:operation"][i];
        expect(operation["http:operation"]["@location"]).toBe(`/${name}`);
        expect(operation["wsdl:output"]["mime:mimeXml"]["@part"]).toBe("Body");
      }
      expect(get["wsdl:operation"][i]["wsdl:input"]).toHaveProperty("http:urlEncoded");
      expect(post["wsdl:operation"][i]["wsdl:input"]["mime:content"]["@type"]).toBe(
        "application/x-www-form-urlencoded",
      );
    }
  });
});

describe("renderWsdl schema", () => {
  it("declares each operation element with its parameters in order: strings minOccurs 0, value types 1", () => {
    for (const op of model.operations) {
      const params = sequence(element(op.name));
      expect(params.map((p) => p["@name"])).toEqual(op.params.map((p) => p.name));
      for (const [i, param] of op.params.entries()) {
        expect(params[i]).toEqual({
          "@minOccurs": scalarTypeOf(param.type) === "string" ? "0" : "1",
          "@maxOccurs": "1",
          "@name": param.name,
          "@type": `s:${scalarTypeOf(param.type)}`,
        });
      }
    }
    expect(
      sequence(element("GetTriggerClicks")).map((p) => [p["@name"], p["@minOccurs"], p["@type"]]),
    ).toEqual([
      ["strUsername", "0", "s:string"],
      ["strPassword", "0", "s:string"],
      ["triggerId", "1", "s:int"],
      ["fromDate", "1", "s:dateTime"],
      ["toDate", "1", "s:dateTime"],
    ]);
  });

  it("declares {Op}Response with one {Op}Result typed by the result kind", () => {
    const result = (op: string) => sequence(element(`${op}Response`));
    expect(result("InsertSubscriberSid")).toEqual([
      { "@minOccurs": "1", "@maxOccurs": "1", "@name": "InsertSubscriberSidResult", "@type": "s:long" },
    ]);
    expect(result("UpdateMailingList")).toEqual([
      { "@minOccurs": "1", "@maxOccurs": "1", "@name": "UpdateMailingListResult", "@type": "s:int" },
    ]);
    expect(result("GetTriggerIdForAccount")).toEqual([
      {
        "@minOccurs": "0",
        "@maxOccurs": "1",
        "@name": "GetTriggerIdForAccountResult",
        "@type": "tns:ArrayOfTriggerResult",
      },
    ]);
    expect(result("SendSmsWithSenderName")).toEqual([
      {
        "@minOccurs": "0",
        "@maxOccurs": "1",
        "@name": "SendSmsWithSenderNameResult",
        "@type": "tns:SmsSingleMessageResult",
      },
    ]);
    const [dataSet] = result("GetReportViewsByDateInterval");
    expect(dataSet).toMatchObject({
      "@minOccurs": "0",
      "@maxOccurs": "1",
      "@name": "GetReportViewsByDateIntervalResult",
    });
    expect(dataSet).not.toHaveProperty("@type");
    expect(dataSet["s:complexType"][0]["s:sequence"]).toEqual({
      "s:element": [{ "@ref": "s:schema" }],
      "s:any": "",
    });
  });

  it("imports the XML Schema namespace without a location, as .NET does for DataSet results", () => {
    expect(schema["s:import"]).toEqual({ "@namespace": "http://www.w3.org/2001/XMLSchema" });
  });

  it("declares each record type (strings minOccurs 0, value types 1) and ArrayOf{Record} for lists", () => {
    for (const record of model.records) {
      const fields = complexType(record.name)["s:sequence"]["s:element"] as Node[];
      expect(fields).toEqual(
        record.fields.map((f) => ({
          "@minOccurs": scalarTypeOf(f.type) === "string" ? "0" : "1",
          "@maxOccurs": "1",
          "@name": f.name,
          "@type": `s:${scalarTypeOf(f.type)}`,
        })),
      );
    }
    const listed = new Set(
      model.operations.flatMap((op) => (op.result.kind === "list" ? [op.result.record.name] : [])),
    );
    expect(listed.size).toBe(5);
    for (const name of listed) {
      expect(complexType(`ArrayOf${name}`)["s:sequence"]["s:element"]).toEqual([
        {
          "@minOccurs": "0",
          "@maxOccurs": "unbounded",
          "@name": name,
          "@nillable": "true",
          "@type": `tns:${name}`,
        },
      ]);
    }
    const typeNames = (schema["s:complexType"] as Node[]).map((t) => t["@name"]);
    expect(new Set(typeNames).size).toBe(typeNames.length);
    expect(typeNames).not.toContain("ArrayOfSmsSingleMessageResult");
  });

  it("declares the HTTP root elements the results use, and only those", () => {
    const roots = (schema["s:element"] as Node[]).filter(
      (e) => !opNames.includes(e["@name"]) && !opNames.map((n) => `${n}Response`).includes(e["@name"]),
    );
    expect(roots.map((e) => e["@name"])).toEqual([
      "ArrayOfTriggerSubscriberClicksResult",
      "ArrayOfTriggerSubscriberViewsResult",
      "ArrayOfTriggerResult",
      "ArrayOfRoiResult",
      "ArrayOfNewsletterFilterResult",
      "DataSet",
      "long",
      "int",
      "SmsSingleMessageResult",
    ]);
    expect(element("long")).toEqual({ "@name": "long", "@type": "s:long" });
    expect(element("int")).toEqual({ "@name": "int", "@type": "s:int" });
    expect(element("ArrayOfRoiResult")).toEqual({
      "@name": "ArrayOfRoiResult",
      "@nillable": "true",
      "@type": "tns:ArrayOfRoiResult",
    });
    expect(element("SmsSingleMessageResult")).toEqual({
      "@name": "SmsSingleMessageResult",
      "@nillable": "true",
      "@type": "tns:SmsSingleMessageResult",
    });
    expect(element("DataSet")).toEqual({
      "@name": "DataSet",
      "@nillable": "true",
      "s:complexType": [{ "s:sequence": { "s:element": [{ "@ref": "s:schema" }], "s:any": "" } }],
    });
  });

  it("leaves out root elements and the XML Schema import that no result needs", () => {
    const tiny: ServiceModel = {
      ...model,
      operations: model.operations.filter((op) => op.name === "InsertSubscriberSid"),
    };
    const tinySchema = definitions(renderWsdl(tiny, docs, address))["wsdl:types"]["s:schema"];
    expect(tinySchema["s:element"].map((e: Node) => e["@name"])).toEqual([
      "InsertSubscriberSid",
      "InsertSubscriberSidResponse",
      "long",
    ]);
    expect(tinySchema).not.toHaveProperty("s:import");
    expect(tinySchema).not.toHaveProperty("s:complexType");
  });
});

describe("renderWsdl messages and service", () => {
  it("lists SOAP messages, then HTTP GET, then HTTP POST messages", () => {
    const names = (defs["wsdl:message"] as Node[]).map((m) => m["@name"]);
    expect(names).toEqual([
      ...opNames.flatMap((n) => [`${n}SoapIn`, `${n}SoapOut`]),
      ...opNames.flatMap((n) => [`${n}HttpGetIn`, `${n}HttpGetOut`]),
      ...opNames.flatMap((n) => [`${n}HttpPostIn`, `${n}HttpPostOut`]),
    ]);
  });

  it("gives SOAP messages one parameters part and HTTP messages one string part per parameter in order", () => {
    const body = (op: OperationModel): string => {
      const r = op.result;
      return r.kind === "scalar"
        ? r.type
        : r.kind === "dataSet"
          ? "DataSet"
          : r.kind === "list"
            ? `ArrayOf${r.record.name}`
            : r.kind === "record"
              ? r.record.name
              : r.kind;
    };
    for (const op of model.operations) {
      expect(message(`${op.name}SoapIn`)["wsdl:part"]).toEqual([
        { "@name": "parameters", "@element": `tns:${op.name}` },
      ]);
      expect(message(`${op.name}SoapOut`)["wsdl:part"]).toEqual([
        { "@name": "parameters", "@element": `tns:${op.name}Response` },
      ]);
      for (const binding of ["HttpGet", "HttpPost"]) {
        expect(message(`${op.name}${binding}In`)["wsdl:part"]).toEqual(
          op.params.map((p) => ({ "@name": p.name, "@type": "s:string" })),
        );
        expect(message(`${op.name}${binding}Out`)["wsdl:part"]).toEqual([
          { "@name": "Body", "@element": `tns:${body(op)}` },
        ]);
      }
    }
    expect(message("InsertSubscriberSidHttpGetOut")["wsdl:part"]).toEqual([
      { "@name": "Body", "@element": "tns:long" },
    ]);
  });

  it("publishes the four ports at the given address", () => {
    const service = defs["wsdl:service"];
    expect(service["@name"]).toBe("ExternalAPIService");
    expect(service["wsdl:documentation"]["#text"]).toBe(docs.doc);
    const ports = (service["wsdl:port"] as Node[]).map((p) => {
      const [kind] = Object.keys(p).filter((k) => k.endsWith(":address"));
      return [p["@name"], p["@binding"], kind, p[kind!]["@location"]];
    });
    expect(ports).toEqual([
      ["ExternalAPIServiceSoap", "tns:ExternalAPIServiceSoap", "soap:address", address],
      ["ExternalAPIServiceSoap12", "tns:ExternalAPIServiceSoap12", "soap12:address", address],
      ["ExternalAPIServiceHttpGet", "tns:ExternalAPIServiceHttpGet", "http:address", address],
      ["ExternalAPIServiceHttpPost", "tns:ExternalAPIServiceHttpPost", "http:address", address],
    ]);
  });

  it("XML-escapes the address", () => {
    const hostile = `http://h/x.asmx?a=1&b="2"<'3'>`;
    const escaped = renderWsdl(model, docs, hostile);
    expect(escaped).toContain('location="http://h/x.asmx?a=1&amp;b=&quot;2&quot;&lt;&apos;3&apos;&gt;"');
    const ports: Node[] = definitions(escaped)["wsdl:service"]["wsdl:port"];
    expect(
      ports.map(
        (p) =>
          p["soap:address"]?.["@location"] ??
          p["soap12:address"]?.["@location"] ??
          p["http:address"]["@location"],
      ),
    ).toEqual([hostile, hostile, hostile, hostile]);
  });

  it("XML-escapes model text", () => {
    const hostile = hostileModel();
    const text = renderWsdl(hostile, hostileDocs(), address);
    const parsed = definitions(text);
    expect(parsed["wsdl:portType"][0]["wsdl:operation"][0]["wsdl:documentation"]["#text"]).toBe(
      hostileDocs().doc,
    );
    expect(parsed["wsdl:service"]["wsdl:documentation"]["#text"]).toBe(hostileDocs().doc);
    expect(text).not.toContain("<script>");
  });
});
