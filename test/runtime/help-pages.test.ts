// The help pages' content, read through an XML parser: the index lists the groups and operations, each
// operation page tables its parameters, rules, result, samples and test form, and no model text or address
// escapes into markup. (help-golden.test.ts holds the exact bytes; test/browser renders them in Chromium.)

import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createDocuments } from "../../runtime/server/documents.js";
import { sampleExchanges } from "../../runtime/server/help/samples.js";
import { modelOf } from "../generator/fixtures/index.js";
import { ruleText } from "../../runtime/server/help/words.js";
import { HOSTILE, hostileDocs, hostileModel, serviceDocs, serviceModel } from "../generator/emit/models.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

// The pages are polyglot markup, so an XML parser gives a faithful tree to look into.
interface Element {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly (Element | string)[];
}

type Ordered = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
});

function toElement(node: Ordered): Element | string {
  if ("#text" in node) return String(node["#text"]);
  const name = Object.keys(node).find((k) => k !== ":@")!;
  return {
    name,
    attrs: (node[":@"] ?? {}) as Record<string, string>,
    children: (node[name] as Ordered[]).map(toElement),
  };
}

function parsePage(html: string): Element {
  const valid = XMLValidator.validate(html);
  if (valid !== true) throw new Error(`not well-formed: ${JSON.stringify(valid.err)}`);
  const root = (parser.parse(html) as Ordered[])
    .map(toElement)
    .find((n): n is Element => typeof n !== "string");
  return root!;
}

function* descendants(el: Element): Generator<Element> {
  for (const child of el.children) {
    if (typeof child === "string") continue;
    yield child;
    yield* descendants(child);
  }
}

function all(root: Element, name: string, attrs: Record<string, string> = {}): Element[] {
  return [...descendants(root)].filter(
    (el) => el.name === name && Object.entries(attrs).every(([k, v]) => el.attrs[k] === v),
  );
}

function one(root: Element, name: string, attrs: Record<string, string> = {}): Element {
  const found = all(root, name, attrs);
  if (found.length !== 1) throw new Error(`${found.length} <${name} ${JSON.stringify(attrs)}> elements`);
  return found[0]!;
}

function text(node: Element | string): string {
  return typeof node === "string" ? node : node.children.map(text).join("");
}

/** Rows of the parameter table, as cell texts. */
function paramRows(page: Element): string[][] {
  return all(one(one(page, "section", { id: "parameters" }), "tbody"), "tr").map((tr) =>
    all(tr, "td").map(text),
  );
}

const BASE = "https://api.example.com:8443/svc/ExternalAPIService.asmx";

const model = serviceModel();
const serviceText = serviceDocs();
const help = createDocuments(model, serviceText);
const hostileHelp = createDocuments(hostileModel(), hostileDocs());

describe("helpIndexHtml", () => {
  it("lists every operation by group, with its doc and a ?op= link", () => {
    const page = parsePage(help.helpIndexHtml(BASE));
    const sections = all(page, "section").filter((s) => all(s, "ul", { class: "ops" }).length === 1);
    expect(sections.map((s) => text(one(s, "h2")))).toEqual(model.groups.map((g) => g.title));
    for (const [i, group] of model.groups.entries()) {
      const items = all(sections[i]!, "li");
      expect(items.map((li) => one(li, "a").attrs.href)).toEqual(
        group.operations.map((name) => `?op=${name}`),
      );
      expect(items.map((li) => text(one(li, "a")))).toEqual(group.operations);
      const docs = group.operations.map((name) => serviceText.operations[name]!.doc);
      expect(items.map((li) => text(one(li, "p")))).toEqual(docs);
    }
    expect(all(page, "a").filter((a) => a.attrs.href?.startsWith("?op="))).toHaveLength(
      SPEC_OPERATIONS.length,
    );
  });

  it("links the WSDL, shows the endpoint and carries no script", () => {
    const page = parsePage(help.helpIndexHtml(BASE));
    expect(all(page, "a", { href: "?WSDL" }).length).toBeGreaterThan(0);
    expect(all(page, "code").map(text)).toContain(BASE);
    expect(all(page, "script")).toEqual([]);
    expect(text(one(page, "style"))).toContain("--accent");
  });
});

describe("helpOperationHtml", () => {
  it("renders a well-formed page for every operation and nothing for unknown names", () => {
    for (const op of model.operations) {
      const page = parsePage(help.helpOperationHtml(op.name, BASE)!);
      expect(text(one(page, "h1"))).toBe(op.name);
    }
    for (const name of ["Nope", "__proto__", "toString", ""])
      expect(help.helpOperationHtml(name, BASE)).toBeUndefined();
  });

  it("tables each parameter with its SOAP type, use, default and rules in words", () => {
    const op = model.operations.find((o) => o.name === "InsertSubscriberSid")!;
    const page = parsePage(help.helpOperationHtml(op.name, BASE)!);
    const rows = paramRows(page);
    expect(rows.map((cells) => cells[0])).toEqual(op.params.map((p) => p.name));
    expect(rows.map((cells) => cells[1])).toEqual(
      op.params.map((p) => (p.type.kind === "scalar" ? p.type.type : "")),
    );
    expect(rows.map((cells) => cells[4])).toEqual(
      op.params.map((p) => serviceText.operations[op.name]!.params[p.name]),
    );
    const format = rows.find((cells) => cells[0] === "strFormat")!;
    expect(format[2]).toBe("optionaldefault HTML");
    expect(format[3]).toBe(ruleText(op.params.find((p) => p.name === "strFormat")!.rules[0]!));
    expect(rows.find((cells) => cells[0] === "strEmail")![2]).toBe("required");
  });

  it("describes value types, formats, ranges, lengths and cross-parameter checks", () => {
    const cellsOf = (opName: string, param: string): string => {
      const row = paramRows(parsePage(help.helpOperationHtml(opName, BASE)!)).find(
        (cells) => cells[0] === param,
      )!;
      return row[3]!;
    };
    expect(cellsOf("GetTriggerClicks", "triggerId")).toBe("Whole number from -2147483648 to 2147483647.");
    const ruleOf = (opName: string, param: string) =>
      ruleText(
        model.operations.find((o) => o.name === opName)!.params.find((p) => p.name === param)!.rules[0]!,
      );
    for (const [opName, param] of [
      ["SendNewsletter", "strSendDate"],
      ["SendSmsWithSenderName", "senderName"],
      ["UpdateSubscriberData", "strDataField"],
    ] as const) {
      expect(cellsOf(opName, param)).toBe(ruleOf(opName, param));
    }
    expect(ruleOf("SendSmsWithSenderName", "senderName")).toContain("16");
    const page = parsePage(help.helpOperationHtml("UpdateSubscriberData", BASE)!);
    expect(all(page, "li").map(text)).toContain(
      "At least one of strSubscriberId and strEmail must be given.",
    );
    const views = parsePage(help.helpOperationHtml("GetReportViewsByDateInterval", BASE)!);
    expect(all(views, "li").map(text)).toContain(
      "ddField must not name a fixed column of the result (SubscriberId, Email, Name, ViewTime), compared ignoring case.",
    );
  });

  it("describes the result, with the record's fields or the DataSet's columns", () => {
    const resultSection = (name: string) =>
      one(parsePage(help.helpOperationHtml(name, BASE)!), "section", { id: "result" });
    expect(text(one(resultSection("InsertSubscriberSid"), "p"))).toBe("long — The subscriber id.");
    const list = resultSection("GetTriggerIdForAccount");
    expect(all(list, "p").map(text)[0]).toBe("ArrayOfTriggerResult — All triggers on the account.");
    expect(all(one(list, "tbody"), "tr").map((tr) => text(all(tr, "td")[0]!))).toEqual([
      "Id",
      "Name",
      "Created",
      "MailinglistId",
      "MailinglistName",
    ]);
    const dataSet = resultSection("GetReportViewsByDateInterval");
    expect(all(one(dataSet, "tbody"), "tr").map((tr) => text(all(tr, "td")[0]!))).toEqual([
      "SubscriberId",
      "Email",
      "Name",
      "ViewTime",
      "(value of ddField)",
    ]);
  });

  it("shows SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST samples with real header lines", () => {
    const page = parsePage(help.helpOperationHtml("InsertSubscriberSid", BASE)!);
    const samples = all(page, "div", { class: "sample" });
    expect(samples.map((s) => s.attrs.id)).toEqual(["soap11", "soap12", "http-get", "http-post"]);
    expect(samples.map((s) => text(one(s, "h3")).split(" ").slice(0, 2).join(" "))).toEqual([
      "SOAP 1.1",
      "SOAP 1.2",
      "HTTP GET",
      "HTTP POST",
    ]);
    const [soap11, soap12, get, post] = samples.map((s) => all(s, "pre").map(text));
    expect(soap11![0]!.split("\n").slice(0, 6)).toEqual([
      "POST /svc/ExternalAPIService.asmx HTTP/1.1",
      "Host: api.example.com:8443",
      "Content-Type: text/xml; charset=utf-8",
      "Content-Length: length",
      'SOAPAction: "http://tempuri.org/InsertSubscriberSid"',
      "",
    ]);
    expect(soap12![0]!.split("\n").slice(0, 4)).toEqual([
      "POST /svc/ExternalAPIService.asmx HTTP/1.1",
      "Host: api.example.com:8443",
      "Content-Type: application/soap+xml; charset=utf-8",
      "Content-Length: length",
    ]);
    expect(get![0]).toBe(
      "GET /svc/ExternalAPIService.asmx/InsertSubscriberSid?strUsername=string&strPassword=string&strEmail=string" +
        "&strName=string&strFormat=string&strCountryCode=string&strPhoneNumber=string&strMailingListID=string HTTP/1.1\n" +
        "Host: api.example.com:8443",
    );
    expect(post![0]!.split("\n")).toEqual([
      "POST /svc/ExternalAPIService.asmx/InsertSubscriberSid HTTP/1.1",
      "Host: api.example.com:8443",
      "Content-Type: application/x-www-form-urlencoded",
      "Content-Length: length",
      "",
      "strUsername=string&strPassword=string&strEmail=string&strName=string&strFormat=string&strCountryCode=string" +
        "&strPhoneNumber=string&strMailingListID=string",
    ]);
    expect(get![1]!.split("\n").slice(-1)).toEqual(['<long xmlns="http://tempuri.org/">long</long>']);
    expect(soap11![1]).toContain("<InsertSubscriberSidResult>long</InsertSubscriberSidResult>");
    expect(soap12![1]).toContain("<soap12:Envelope ");
  });

  it("writes well-formed XML in every sample body", () => {
    for (const op of model.operations) {
      const page = parsePage(help.helpOperationHtml(op.name, BASE)!);
      for (const pre of all(page, "pre").filter((p) => p.attrs.id === undefined)) {
        const [, body] = text(pre).split("\n\n");
        if (body === undefined || !body.startsWith("<")) continue;
        expect(XMLValidator.validate(body), `${op.name}: ${body}`).toBe(true);
      }
    }
  });

  it("has a test form with one text input per parameter posting to the HTTP POST binding", () => {
    const op = model.operations.find((o) => o.name === "GetTriggerClicks")!;
    const page = parsePage(help.helpOperationHtml(op.name, `${BASE}/`)!);
    const form = one(page, "form");
    // A path: the form posts to the origin the page came from, whatever Host the page was asked under.
    expect(form.attrs).toMatchObject({
      action: "/svc/ExternalAPIService.asmx/GetTriggerClicks",
      method: "post",
    });
    const inputs = all(form, "input");
    expect(inputs.map((i) => i.attrs.name)).toEqual(op.params.map((p) => p.name));
    expect(inputs.every((i) => i.attrs.type === "text")).toBe(true);
    expect(all(form, "button", { type: "submit" })).toHaveLength(1);
    const script = text(one(page, "script"));
    expect(script).toContain("fetch(form.action");
    expect(script).toContain("new URLSearchParams(new FormData(form))");
    expect(script).toContain("body.textContent = text");
    expect(one(page, "pre", { id: "answer-body" }).children).toEqual([]);
  });

  it("escapes the base URL wherever it is filled in", () => {
    const base = `http://h/a.asmx?x="1"&y=<2>`;
    const html = help.helpOperationHtml("GetTriggerClicks", base)!;
    expect(html).not.toContain("<!--@");
    const page = parsePage(html);
    expect(one(page, "form").attrs.action).toBe("/a.asmx/GetTriggerClicks");
    const index = parsePage(help.helpIndexHtml(base));
    expect(all(index, "code").map(text)).toContain(base);
  });
});

describe("help pages of a hostile model", () => {
  const hostile = hostileModel();

  it("keep every model text as text, in the index and on every operation page", () => {
    const index = parsePage(hostileHelp.helpIndexHtml(BASE));
    expect(all(index, "script")).toEqual([]);
    expect(text(one(index, "p", { class: "lede" }))).toBe(HOSTILE);
    expect(text(all(index, "h2")[0]!)).toBe(HOSTILE);
    const items = all(one(index, "ul", { class: "ops" }), "li");
    expect(items.map((li) => text(one(li, "p")))).toEqual([HOSTILE, HOSTILE, HOSTILE, HOSTILE]);
    for (const op of hostile.operations) {
      const page = parsePage(hostileHelp.helpOperationHtml(op.name, BASE)!);
      // Only the page's own script; the spec's "<script>" stays text.
      expect(all(page, "script")).toHaveLength(1);
      expect(text(one(page, "p", { class: "lede" }))).toBe(HOSTILE);
      const cells = paramRows(page);
      expect(cells[0]![4]).toBe(HOSTILE);
      expect(cells[0]![2]).toBe(`optionaldefault ${HOSTILE}`);
      expect(cells[0]![3]).toBe(ruleText(op.params[0]!.rules[0]!));
      expect(cells[0]![3]).toContain(HOSTILE);
      expect(one(page, "input").attrs.placeholder).toBe(`${HOSTILE} | plain (default ${HOSTILE})`);
      // The namespace's "&" reaches the samples escaped and comes back intact.
      expect(text(all(one(page, "div", { id: "soap11" }), "pre")[0]!)).toContain(
        `SOAPAction: "http://example.com/a&b/${op.name}"`,
      );
    }
  });
});

describe("sample messages of the issue 11 types", () => {
  const text = readFileSync(new URL("../generator/fixtures/types.yaml", import.meta.url), "utf8");
  const model = modelOf(text);
  const samples = (name: string) => {
    const op = model.operations.find((o) => o.name === name)!;
    return new Map(sampleExchanges(model, op).map((s) => [s.id, s]));
  };

  it("shows arrays as two items named after the item type, repeated fields on HTTP, enums by their values", () => {
    const sum = samples("Sum");
    expect(sum.get("soap11")!.request.rest).toContain(
      [
        '    <Sum xmlns="urn:example:types">',
        "      <ids>",
        "        <int>int</int>",
        "        <int>int</int>",
        "      </ids>",
        "      <colors>",
        "        <Color>Red or Green or Blue</Color>",
        "        <Color>Red or Green or Blue</Color>",
        "      </colors>",
        "    </Sum>",
      ].join("\n"),
    );
    expect(sum.get("http-get")!.request.target).toBe(
      "/Sum?ids=int&ids=int&colors=Red or Green or Blue&colors=Red or Green or Blue",
    );
  });

  it("spells out nested records, one item per array inside an array", () => {
    const people = samples("People");
    const response = people.get("soap11")!.response;
    expect(response).toContain(
      "          <Home>\n            <Street>string</Street>\n            <Zip>int</Zip>",
    );
    // Others (an array inside the list) shows one Address, Tags inside it one string.
    expect(response.split("<Address>").length - 1).toBe(2);
    expect(response.split("<Person>\n").length - 1).toBe(2);
    // Reports holds Person inside Person: shown once, then named, where spelling it out would never end.
    expect(response.split("<Reports>\n            <Person>Person</Person>\n").length - 1).toBe(2);
    // A record parameter keeps the operation off HTTP: no HTTP samples.
    expect([...people.keys()]).toEqual(["soap11", "soap12"]);
  });

  it("shows void as an empty response element and one-way as 202 without a body", () => {
    expect(samples("Reset").get("soap11")!.response).toContain('<ResetResponse xmlns="urn:example:types" />');
    expect(samples("Reset").get("http-get")!.response).toBe("HTTP/1.1 200 OK");
    for (const sample of samples("Notify").values()) expect(sample.response).toBe("HTTP/1.1 202 Accepted");
  });

  it("shows each new scalar by its type name", () => {
    const find = samples("Find").get("soap12")!.request.rest;
    for (const line of [
      "<id>guid</id>",
      "<initial>char</initial>",
      "<photo>base64Binary</photo>",
      "<big>unsignedLong</big>",
    ]) {
      expect(find).toContain(line);
    }
  });

  /** A model of records R0…R{depth-1}, each node's fields given by `fields(next)`, R0 the result of Get. */
  const chain = (depth: number, fields: (next: string) => string) => {
    const records = Array.from({ length: depth }, (_, i) =>
      i === depth - 1
        ? `  R${i}:\n    doc: Leaf.\n    fields:\n      - { name: V, type: int }\n`
        : `  R${i}:\n    doc: Node.\n    fields:\n${fields(`R${i + 1}`)}`,
    ).join("");
    const model = modelOf(
      "service: { name: Deep, namespace: urn:deep, endpoint: Deep.asmx, doc: Deep. }\n" +
        `records:\n${records}` +
        "groups:\n  - name: g\n    title: G\n    operations:\n      - { name: Get, doc: Gets., result: { type: R0, doc: The tree. } }\n",
    );
    return sampleExchanges(model, model.operations[0]!);
  };

  it("bounds the expansion of deeply nested records", () => {
    // R0 holds two R1, R1 two R2, … R19: expanded in full that is 2^20 elements.
    const [soap] = chain(
      20,
      (next) => `      - { name: A, type: ${next} }\n      - { name: B, type: ${next} }\n`,
    );
    expect(soap!.response.split("\n").length).toBeLessThan(5_000);
    expect(soap!.response).toContain("<A>R");
  });

  it("bounds the expansion of arrays of records holding arrays, where each level doubles the last", () => {
    // R0 holds R1[], R1 holds R2[], … R39: two items at every level would be 2^39 elements.
    for (const sample of chain(40, (next) => `      - { name: A, type: "${next}[]" }\n`)) {
      expect(sample.response.split("\n").length).toBeLessThan(5_000);
      expect(sample.response).toContain("<R1>");
    }
  });
});
