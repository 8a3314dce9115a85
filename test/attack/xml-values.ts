// `npm run fuzz -- --only xmlvalues`: hostile XML values (the spec's xmlElement and xmlNode types: xs:any in
// the WSDL) against a generated server whose operations take and return them, on SOAP 1.1 and 1.2. Deep,
// wide, huge and namespace-heavy values, values that are not one element (text, several elements, mixed
// content), records that hold themselves (5,000 deep; a handler's cyclic one), xs:choice alternatives
// (two of one choice, a nil item of a repeated choice), records whose xsi:type names another type (a derived one, which the spec cannot read: refused,
// never read as the declared record), and handlers returning what is not an XML value (a cycle, a name that
// would inject markup; untyped DataSets whose table, column or cell would inject markup, or that are wide),
// and [Flags] lists (long, blank, naming no flag, or carrying markup):
// every request gets the expected status, the handler never runs on a refusal, no answer carries injected
// markup or a stack trace, and the server stays up.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateCommand } from "../../generator/commands.js";
import { close, listen } from "../headers/imported.js";
import { ms, type Row } from "./report.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NS = "urn:xml-values";
const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";

const SPEC = `service:
  name: XmlValues
  namespace: "${NS}"
  endpoint: XmlValues.asmx
  doc: XML values both ways.
enums:
  Permissions:
    doc: A [Flags] enum.
    values: [None, Read, Write, Delete, All]
    flags: true
records:
  Holder:
    doc: A record with an XML member.
    fields:
      - { name: Kind, type: string }
      - { name: Payload, type: xmlElement }
  Tree:
    doc: A record that holds itself, with a choice and a repeated choice.
    fields:
      - { name: Label, type: string, choice: Item }
      - { name: Code, type: base64Binary, choice: Item }
      - { name: Children, type: "Tree[]" }
      - { name: Sights, type: "Sight[]" }
  Sight:
    doc: One sight, a town or a landmark.
    choice: true
    fields:
      - { name: Town, type: string }
      - { name: Landmark, type: string }
groups:
  - name: xml
    title: XML
    operations:
      - name: EchoNode
        doc: Echoes an XML node.
        params:
          - { name: node, type: xmlNode, doc: The node. }
        result: { type: xmlNode, doc: The same node. }
      - name: EchoHolder
        doc: Echoes a record with an XML member.
        params:
          - { name: holder, type: Holder, doc: The record. }
        result: { type: Holder, doc: The same record. }
      - name: EchoTree
        doc: Echoes a tree (a cycle when its label says so).
        params:
          - { name: tree, type: Tree, doc: The tree. }
        result: { type: Tree, doc: The same tree. }
      - name: Pick
        doc: Takes one of two alternatives.
        params:
          - { name: a, type: string, choice: Item, doc: One. }
          - { name: b, type: string, choice: Item, doc: The other. }
        result: { type: string, doc: The one given. }
      - name: Bad
        doc: Returns what the handler makes of the kind asked for.
        params:
          - { name: kind, type: string, doc: Which bad value. }
        result: { type: xmlElement, doc: Never a good one. }
      - name: Tables
        doc: Returns the untyped DataSet the handler makes of the kind asked for.
        params:
          - { name: kind, type: string, doc: Which value. }
        result: { kind: dataSet, doc: Tables the spec does not name. }
      - name: Grant
        doc: Echoes a set of flags.
        params:
          - { name: current, type: Permissions, doc: The flags. }
        result: { type: Permissions, doc: The same flags. }
`;

interface Case {
  readonly name: string;
  readonly body: string;
  readonly op: string;
  readonly status: number;
  /** What the answer holds (a fault code or the echoed markup). */
  readonly holds: string;
  readonly runs: boolean;
  /** What the answer must not hold. */
  readonly lacks?: string;
}

const echo = (inner: string) => `<EchoNode xmlns="${NS}"><node>${inner}</node></EchoNode>`;
const tree = (inner: string) => `<EchoTree xmlns="${NS}"><tree>${inner}</tree></EchoTree>`;
/** A tree `depth` records deep (a record that holds itself, through Children). */
const nested = (depth: number) =>
  tree(`${"<Label>n</Label><Children><Tree>".repeat(depth)}${"</Tree></Children>".repeat(depth)}`);
const grant = (flags: string) => `<Grant xmlns="${NS}"><current>${flags}</current></Grant>`;

function cases(): Case[] {
  const deep = `${"<d>".repeat(5000)}${"</d>".repeat(5000)}`;
  const wide = `<w>${"<i/>".repeat(200_000)}</w>`;
  const huge = `<t>${"x".repeat(8 * 1024 * 1024)}</t>`;
  let manyNs = "<m";
  for (let i = 0; i < 30; i++) manyNs += ` xmlns:p${i}="urn:n${i}" p${i}:a="${i}"`;
  manyNs += "/>";
  return [
    {
      name: "an XML value nested 5,000 deep",
      op: "EchoNode",
      body: echo(deep),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "an XML value of 200,000 elements",
      op: "EchoNode",
      body: echo(wide),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "an 8 MiB text inside an XML value",
      op: "EchoNode",
      body: echo(huge),
      status: 200,
      holds: `<EchoNodeResult><t xmlns="${NS}">xxxx`,
      runs: true,
    },
    {
      name: "30 namespaced attributes on an XML value",
      op: "EchoNode",
      body: echo(manyNs),
      status: 200,
      holds: ':a="29" />',
      runs: true,
    },
    {
      name: "text where an XML element is expected",
      op: "EchoNode",
      body: echo("just text"),
      status: 400,
      holds: "Parameter node: node",
      runs: false,
    },
    {
      name: "two elements in one XML value",
      op: "EchoNode",
      body: echo("<a/><b/>"),
      status: 400,
      holds: "Parameter node: node",
      runs: false,
    },
    {
      name: "mixed content inside an XML value",
      op: "EchoNode",
      body: echo("<a>x<b/>y</a>"),
      status: 400,
      holds: "Parameter node: node",
      runs: false,
    },
    {
      name: "an XML member of a record",
      op: "EchoHolder",
      body: `<EchoHolder xmlns="${NS}"><holder><Kind>k</Kind><Payload><q:p xmlns:q="urn:q">v</q:p></Payload></holder></EchoHolder>`,
      status: 200,
      holds: '<Payload><q:p xmlns:q="urn:q">v</q:p></Payload>',
      runs: true,
    },
    {
      name: "a record parameter whose xsi:type names another type",
      op: "EchoHolder",
      body: `<EchoHolder xmlns="${NS}"><holder xmlns:i="${XSI}" i:type="q:Derived"><Kind>k</Kind></holder></EchoHolder>`,
      status: 400,
      holds: "xsi:type q:Derived is not Holder",
      runs: false,
    },
    {
      name: "a record parameter whose xsi:type names its own type",
      op: "EchoHolder",
      body: `<EchoHolder xmlns="${NS}"><holder xmlns:i="${XSI}" i:type="t:Holder"><Kind>k</Kind></holder></EchoHolder>`,
      status: 200,
      holds: "<Kind>k</Kind>",
      runs: true,
    },
    {
      name: "a record that holds itself, 5,000 deep",
      op: "EchoTree",
      body: nested(5000),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "a record that holds itself, 10 deep",
      op: "EchoTree",
      body: nested(10),
      status: 200,
      holds: "<Children><Tree><Label>n</Label><Children><Tree>",
      runs: true,
    },
    {
      name: "two alternatives of one xs:choice in a record",
      op: "EchoTree",
      body: tree("<Label>a</Label><Code>AA==</Code>"),
      // A value that reads but breaks a rule: the client fault .NET gives a bad value (500).
      status: 500,
      holds: "Label and Code are alternatives of one choice (Item)",
      runs: false,
    },
    {
      name: "two alternatives of one xs:choice as parameters",
      op: "Pick",
      body: `<Pick xmlns="${NS}"><a>x</a><b>y</b></Pick>`,
      // A value that reads but breaks a rule: the client fault .NET gives a bad value (500).
      status: 500,
      holds: "a and b are alternatives of one choice (Item)",
      runs: false,
    },
    {
      name: "one alternative of an xs:choice as parameters",
      op: "Pick",
      body: `<Pick xmlns="${NS}"><b>y</b></Pick>`,
      status: 200,
      holds: "<PickResult>y</PickResult>",
      runs: true,
    },
    {
      name: "a nil item of a repeated xs:choice",
      op: "EchoTree",
      body: tree(`<Sights><Town xmlns:i="${XSI}" i:nil="true" /></Sights>`),
      status: 400,
      holds: "Town is nil, but an item of ArrayOfSight holds one of its alternatives",
      runs: false,
    },
    {
      name: "a repeated xs:choice of 4,000 items, other elements among them",
      op: "EchoTree",
      body: tree(`<Sights>${"<Town>t</Town><Other>o</Other><Landmark>l</Landmark>".repeat(2000)}</Sights>`),
      status: 200,
      holds: "<Sights><Town>t</Town><Landmark>l</Landmark><Town>t</Town>",
      runs: true,
    },
    {
      name: "a handler returning a record that holds itself",
      op: "EchoTree",
      body: tree("<Label>cycle</Label>"),
      status: 500,
      holds: "Server",
      runs: true,
    },
    {
      name: "a handler returning a cyclic value",
      op: "Bad",
      body: `<Bad xmlns="${NS}"><kind>cycle</kind></Bad>`,
      status: 500,
      holds: "Server",
      runs: true,
    },
    {
      name: "an untyped DataSet whose table name would inject markup",
      op: "Tables",
      body: `<Tables xmlns="${NS}"><kind>table</kind></Tables>`,
      status: 500,
      holds: "Server",
      runs: true,
      lacks: "<script",
    },
    {
      name: "an untyped DataSet whose column name would inject markup",
      op: "Tables",
      body: `<Tables xmlns="${NS}"><kind>column</kind></Tables>`,
      status: 500,
      holds: "Server",
      runs: true,
      lacks: "<script",
    },
    {
      name: "an untyped DataSet whose row has a cell of no column",
      op: "Tables",
      body: `<Tables xmlns="${NS}"><kind>stray</kind></Tables>`,
      status: 500,
      holds: "Server",
      runs: true,
    },
    {
      name: "an untyped DataSet cell holding markup",
      op: "Tables",
      body: `<Tables xmlns="${NS}"><kind>cell</kind></Tables>`,
      status: 200,
      holds: "<C>&lt;/C&gt;&lt;script&gt;</C>",
      runs: true,
      lacks: "<script",
    },
    {
      name: "an untyped DataSet of 2,000 columns and 100 rows",
      op: "Tables",
      body: `<Tables xmlns="${NS}"><kind>wide</kind></Tables>`,
      status: 200,
      holds: '<T diffgr:id="T100" msdata:rowOrder="99"',
      runs: true,
    },
    {
      name: "a flags list of 200,000 names (each once in the answer)",
      op: "Grant",
      body: grant("Read Write ".repeat(100_000)),
      status: 200,
      holds: "<GrantResult>Read Write</GrantResult>",
      runs: true,
    },
    {
      name: "a flags list of 200,000 blanks (the empty set)",
      op: "Grant",
      body: grant(" \t\n".repeat(66_667)),
      status: 200,
      holds: "<GrantResult />",
      runs: true,
    },
    {
      name: "a flags list naming a value of no flag, after 100,000 good ones",
      op: "Grant",
      body: grant(`${"Read ".repeat(100_000)}Execute`),
      status: 500,
      holds: "Client",
      runs: false,
    },
    {
      name: "a flags list whose bad name would inject markup",
      op: "Grant",
      body: grant("Read &lt;script&gt;alert(1)&lt;/script&gt;"),
      status: 500,
      holds: "Client",
      runs: false,
      lacks: "<script",
    },
    {
      name: "a handler returning a name that would inject markup",
      op: "Bad",
      body: `<Bad xmlns="${NS}"><kind>inject</kind></Bad>`,
      status: 500,
      holds: "Server",
      runs: true,
      lacks: "<script",
    },
  ];
}

export async function xmlValuesSection(rows: Row[]): Promise<void> {
  mkdirSync(path.join(HERE, ".tmp"), { recursive: true });
  const dir = mkdtempSync(path.join(HERE, ".tmp", "xml-values-"));
  let server: Server | undefined;
  let calls = 0;
  try {
    const spec = path.join(dir, "XmlValues.yaml");
    writeFileSync(spec, SPEC);
    const lines: string[] = [];
    const code = await generateCommand(
      { spec, out: path.join(dir, "out") },
      { out: (l) => lines.push(l), err: (l) => lines.push(l) },
    );
    if (code !== 0) throw new Error(`generate failed:\n${lines.join("\n")}`);
    const generated = (await import(pathToFileURL(path.join(dir, "out", "server.ts")).href)) as {
      createServer(impl: object): Server;
    };
    server = generated.createServer({
      EchoNode: ({ node }: { node?: unknown }) => {
        calls++;
        return node ?? null;
      },
      EchoHolder: ({ holder }: { holder?: unknown }) => {
        calls++;
        return holder ?? null;
      },
      EchoTree: ({ tree }: { tree?: { Label?: string; Children?: unknown[] } }) => {
        calls++;
        if (tree?.Label === "cycle") {
          const cyclic: { Label: string; Children: unknown[] } = { Label: "cycle", Children: [] };
          cyclic.Children.push(cyclic);
          return cyclic;
        }
        return tree ?? null;
      },
      Pick: ({ a, b }: { a?: string; b?: string }) => {
        calls++;
        return a ?? b ?? "";
      },
      Bad: ({ kind }: { kind?: string }) => {
        calls++;
        if (kind === "cycle") {
          const a: { ns: string; local: string; children: unknown[] } = { ns: "", local: "a", children: [] };
          a.children.push(a);
          return a;
        }
        return { ns: "", local: "a><script>alert(1)</script", children: [] };
      },
      Grant: ({ current }: { current: readonly string[] }) => {
        calls++;
        return current;
      },
      Tables: ({ kind }: { kind?: string }) => {
        calls++;
        const bad = "a><script>alert(1)</script";
        const table = (name: string, columns: { name: string; type: string }[], rows: object[]) => ({
          dataSetName: "D",
          tables: [{ name, columns, rows }],
        });
        if (kind === "table") return table(bad, [], []);
        if (kind === "column") return table("T", [{ name: bad, type: "string" }], []);
        if (kind === "stray") return table("T", [{ name: "C", type: "string" }], [{ C: "x", D: "y" }]);
        if (kind === "cell") return table("T", [{ name: "C", type: "string" }], [{ C: "</C><script>" }]);
        const columns = Array.from({ length: 2000 }, (_, i) => ({ name: `C${i}`, type: "int" }));
        const row = Object.fromEntries(columns.map((c, i) => [c.name, i]));
        return table(
          "T",
          columns,
          Array.from({ length: 100 }, () => row),
        );
      },
    });
    const base = await listen(server);
    for (const c of cases()) {
      const problems: string[] = [];
      let sent = 0;
      let slowest = 0;
      for (const version of ["soap11", "soap12"] as const) {
        const before = calls;
        const started = performance.now();
        const res = await fetch(`${base}XmlValues.asmx`, {
          method: "POST",
          headers:
            version === "soap11"
              ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${NS}/${c.op}"` }
              : { "content-type": `application/soap+xml; charset=utf-8; action="${NS}/${c.op}"` },
          body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${version === "soap11" ? SOAP11 : SOAP12}"><soap:Body>${c.body}</soap:Body></soap:Envelope>`,
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        slowest = Math.max(slowest, performance.now() - started);
        sent++;
        // SOAP 1.2 names the caller's fault Sender and the server's Receiver.
        const holds =
          version === "soap12" ? c.holds.replace("Client", "Sender").replace("Server", "Receiver") : c.holds;
        if (res.status !== c.status)
          problems.push(`${version}: status ${res.status}, want ${c.status}: ${text.slice(0, 200)}`);
        else if (holds !== "" && !text.includes(holds))
          problems.push(`${version}: the answer lacks ${holds}: ${text.slice(0, 200)}`);
        if (c.lacks !== undefined && text.includes(c.lacks))
          problems.push(`${version}: the answer holds ${c.lacks}`);
        if (!c.runs && calls !== before) problems.push(`${version}: the handler ran`);
        if (text.includes("   at ")) problems.push(`${version}: a stack trace on the wire`);
      }
      rows.push({
        attack: `xmlvalues: ${c.name}`,
        requests: sent,
        outcome:
          problems.length === 0
            ? `${c.status}${c.holds === "" ? "" : ` ${c.holds.slice(0, 30)}`}`
            : `${problems.length} unexpected`,
        measured: `slowest ${ms(slowest)}`,
        target: `${c.status}${c.runs ? "" : ", the handler not run"}`,
        pass: problems.length === 0,
        details: problems,
      });
    }
  } finally {
    await close(server);
    rmSync(dir, { recursive: true, force: true });
  }
}
