// Python's zeep, a third-party SOAP client, loads the WSDL our server serves and calls every operation over
// all four ports (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST). We assert the values zeep decoded, and that the
// server received each call with the sample's parameters and the credentials.
// Needs Debian's python with zeep (apt-get install python3-zeep); the script only ever contacts 127.0.0.1.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasZeep, PYTHON } from "../fixtures/system-component.js";
// The defaults the server applies are in the server's model.
import { serverOperations as operations } from "../../generated/server-model.js";
import type { SoapType, TypeModel, BindingName } from "../../generated/runtime/model.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { CREDENTIALS, samples } from "../fixtures/samples.js";

const SCRIPT = fileURLToPath(new URL("./zeep_calls.py", import.meta.url));
const INSTALL_HINT = `needs ${PYTHON} with zeep: apt-get install python3-zeep (Debian's package, for the system python)`;

type Op = keyof typeof samples;
const opNames = Object.keys(operations) as Op[];

const PORTS = {
  Soap: { port: "ExternalAPIServiceSoap", binding: "soap11", http: false },
  Soap12: { port: "ExternalAPIServiceSoap12", binding: "soap12", http: false },
  HttpGet: { port: "ExternalAPIServiceHttpGet", binding: "httpGet", http: true },
  HttpPost: { port: "ExternalAPIServiceHttpPost", binding: "httpPost", http: true },
} as const satisfies Record<string, { port: string; binding: BindingName; http: boolean }>;
type PortKey = keyof typeof PORTS;
const portKeys = Object.keys(PORTS) as PortKey[];

/**
 * Where zeep 4.2 decodes a correct answer differently from what was sent. Each entry names the zeep code
 * responsible and turns the value we sent into the value zeep gives; the test asserts that zeep still gives
 * exactly that, and that it still differs from what was sent, so it notices when a zeep release fixes it.
 * Our side was checked first: the responses are the ones the wire reference (docs/wire.md §2, §4)
 * records for ASMX (`<NewsletterName />` for an empty string, `<GetNewsletterFiltersResult />` for an empty
 * array), and the same answers decode as sent over the other ports or with our own client.
 */
const emptyStringIsNone =
  "zeep decodes an empty string element (<NewsletterName />) as None: zeep/xsd/types/simple.py " +
  "AnySimpleType.parse_xmlelement returns None when the element has no text, so '' and absent look alike";
const emptyArrayIsNone =
  "zeep decodes an empty array (<GetNewsletterFiltersResult />) as None instead of []: " +
  "zeep/xsd/types/complex.py ComplexType.parse_xmlelement returns None for an element without children " +
  "when allow_none is set, as it is for nested elements; over HTTP the empty array is the document root, which " +
  "MimeXML.deserialize parses with Element.parse's default allow_none=False, and zeep gives []";
const ZEEP_LIMITATIONS: Partial<
  Record<`${PortKey}/${Op}`, { why: string; zeepGives: (sent: unknown) => unknown }>
> = {
  "Soap/GetTriggerClicks": { why: emptyStringIsNone, zeepGives: (v) => emptyToNull(v) },
  "Soap12/GetTriggerClicks": { why: emptyStringIsNone, zeepGives: (v) => emptyToNull(v) },
  "HttpGet/GetTriggerClicks": { why: emptyStringIsNone, zeepGives: (v) => emptyToNull(v) },
  "HttpPost/GetTriggerClicks": { why: emptyStringIsNone, zeepGives: (v) => emptyToNull(v) },
  "Soap/GetNewsletterFilters": { why: emptyArrayIsNone, zeepGives: () => null },
  "Soap12/GetNewsletterFilters": { why: emptyArrayIsNone, zeepGives: () => null },
};

/**
 * zeep's HTTP bindings and a parameter the caller leaves out. ASMX's GET/POST bindings need every parameter
 * (an empty value meaning ""), so zeep_calls.py passes "" for each part the sample leaves out; these probes
 * call without that and assert zeep's behaviour is unchanged.
 */
const ZEEP_HTTP_OMITTED_PARAM = {
  HttpPost:
    "zeep writes the text 'None' into the form for a part not given: zeep/wsdl/messages/mime.py " +
    "MimeContent.serialize url-encodes serialize_object(...) and urlencode renders None as 'None'",
  HttpGet:
    "zeep leaves a part not given out of the query (zeep/wsdl/messages/http.py UrlEncoded.serialize passes None, " +
    "requests drops None params), so ASMX answers 'Missing parameter'",
} as const;
const PROBE_OP = "InsertTransaction" satisfies Op;
const PROBE_MARK = "omitted-param-probe";
/** The sample call without strName, marked so the server's record of it is found. */
function probeParams(): Record<string, unknown> {
  const { strName: _omitted, ...rest } = samples[PROBE_OP].params;
  return {
    strUsername: CREDENTIALS.username,
    strPassword: CREDENTIALS.password,
    ...rest,
    strIdentifier: PROBE_MARK,
  };
}

/**
 * zeep's HTTP ports write a Python datetime as str(datetime), `2024-01-02 03:04:05`: ASMX converts it as .NET
 * converts text (docs/wire.md §1a), and so does our server, handing the handler the xs:dateTime text.
 */
const DATETIME_OP = "GetTriggerViews" satisfies Op;
const DATETIME_MARK = 424242;
function datetimeParams(): Record<string, unknown> {
  return {
    strUsername: CREDENTIALS.username,
    strPassword: CREDENTIALS.password,
    triggerId: DATETIME_MARK,
    fromDate: { $datetime: "2024-01-02T03:04:05" },
    toDate: { $datetime: "2024-02-01T00:00:00" },
  };
}

interface ZeepOutput {
  zeep: string;
  results: Record<string, Record<string, { value?: unknown; error?: string }>>;
  probes: { value?: unknown; error?: string }[];
}

function withCredentials(op: Op): Record<string, unknown> {
  return { strUsername: CREDENTIALS.username, strPassword: CREDENTIALS.password, ...samples[op].params };
}

function runZeep(job: unknown): Promise<ZeepOutput> {
  return new Promise((resolve, reject) => {
    // Asynchronous: the fixture server answers from this same process.
    const child = spawn(PYTHON, [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (error) =>
      reject(new Error(`cannot run ${PYTHON} (${error.message}); ${INSTALL_HINT}`)),
    );
    child.on("close", (code) => {
      if (code !== 0) {
        const hint = /No module named '?zeep/.test(stderr) ? INSTALL_HINT : "zeep_calls.py failed";
        reject(new Error(`${hint}\n${stderr}`));
        return;
      }
      resolve(JSON.parse(stdout) as ZeepOutput);
    });
    child.stdin.on("error", () => {}); // a python that is missing or dies early: reported by "error"/"close"
    child.stdin.end(JSON.stringify(job));
  });
}

/** zeep's tagged values back to exact JavaScript ones: $int → bigint, $float → number; other tags stay. */
function fromZeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromZeep);
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$int === "string") return BigInt(o.$int);
  if (typeof o.$float === "string") {
    const special: Record<string, number> = { inf: Infinity, "-inf": -Infinity, nan: NaN };
    // Python's repr and JavaScript's String differ only in notation (1e-07 / 1e-7): compare as numbers.
    return o.$float in special ? special[o.$float] : Number(o.$float);
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fromZeep(v)]));
}

/**
 * An xsd:dateTime as zeep renders it: Python's datetime.isoformat() of what isodate parsed. Representation
 * only, the instant and the zone are kept: fractions become six digits (dropped when zero) and Z becomes +00:00.
 */
function zeepDateTime(text: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/.exec(text);
  if (!m) throw new Error(`not an xsd:dateTime: ${text}`);
  const micro = (m[2] ?? "").padEnd(6, "0").slice(0, 6);
  return m[1] + (/[1-9]/.test(micro) ? `.${micro}` : "") + (m[3] === "Z" ? "+00:00" : (m[3] ?? ""));
}

/** A value of `type` as zeep decodes it (after fromZeep); an absent value is None. */
function zeepValue(type: SoapType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "int":
    case "long":
      return BigInt(value as number | bigint);
    case "decimal":
      return { $decimal: value }; // Python's Decimal keeps the digits: "98.25" stays "98.25"
    case "dateTime":
      return { $datetime: zeepDateTime(value as string) };
    default:
      return value;
  }
}

function zeepRecord(fields: readonly { name: string; type: TypeModel }[], record: Record<string, unknown>) {
  return Object.fromEntries(
    fields.map((f) => [f.name, zeepValue((f.type as { readonly type: SoapType }).type, record[f.name])]),
  );
}

/** What zeep should give for the sample result of `op` on a port, before any ZEEP_LIMITATIONS. */
function expectedFromZeep(op: Op, http: boolean): unknown {
  const model = operations[op].result;
  const result: unknown = samples[op].result;
  switch (model.kind) {
    case "scalar":
      return zeepValue(model.type, result);
    case "record":
      return zeepRecord(model.record.fields, result as Record<string, unknown>);
    case "list": {
      const records = (result as Record<string, unknown>[]).map((r) => zeepRecord(model.record.fields, r));
      // zeep unwraps the SOAP response wrapper down to the list. Over HTTP the body is the ArrayOfX element
      // itself, which zeep returns as an object holding the list under the record element's name.
      return http ? { [model.record.name]: records } : records;
    }
    case "dataSet": {
      // zeep reads the DataSet's inline xs:schema (kept as "schema") and decodes the diffgram's rows with it
      // (zeep/xsd/elements/any.py tries the inline schemas on the xs:any content): typed cells, every column
      // present, a null cell as None. The rows sit in the choice's "_value_1" list, one {Table: row} each.
      const set = result as {
        dataSetName: string;
        table: string;
        columns: { name: string; type: SoapType }[];
      };
      const rows = (result as { rows: Record<string, unknown>[] }).rows;
      const properties = model.dataSet.columns.map((c) => c.property);
      const signature = set.columns.map((c) => `${c.name}: xsd:${c.type}`).join(", ");
      return {
        schema: { $schema: { [set.dataSetName]: `${set.dataSetName}(({${set.table}: {${signature}}})[])` } },
        _value_1: {
          _value_1: rows.map((row) => ({
            [set.table]: Object.fromEntries(
              set.columns.map((c, i) => [c.name, zeepValue(c.type, row[properties[i]])]),
            ),
          })),
        },
      };
    }
  }
}

function emptyToNull(value: unknown): unknown {
  if (value === "") return null;
  if (Array.isArray(value)) return value.map(emptyToNull);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, emptyToNull(v)]));
  }
  return value;
}

/** What the server's handler should see: the sample params with the spec's defaults applied. */
function expectedParams(op: Op, http: boolean): Record<string, unknown> {
  const sent: Record<string, unknown> = { ...samples[op].params };
  for (const p of operations[op].params) {
    if (p.credential) continue;
    const absent = sent[p.name] === undefined || sent[p.name] === "";
    if (absent && "default" in p) sent[p.name] = p.default;
    // zeep_calls.py passes "" for each HTTP part the sample leaves out; the server keeps it as "".
    else if (http && sent[p.name] === undefined) sent[p.name] = "";
  }
  return sent;
}

let server: FixtureServer;
let output: ZeepOutput;
const zeepInstalled = hasZeep();

beforeAll(async () => {
  if (!zeepInstalled) return;
  server = await startFixtureServer();
  output = await runZeep({
    endpoint: server.endpointUrl,
    ports: portKeys.map((k) => PORTS[k].port),
    calls: Object.fromEntries(opNames.map((op) => [op, withCredentials(op)])),
    probes: [
      ...(["HttpPost", "HttpGet"] as const).map((k) => ({
        port: PORTS[k].port,
        operation: PROBE_OP,
        params: probeParams(),
      })),
      ...(["HttpPost", "HttpGet"] as const).map((k) => ({
        port: PORTS[k].port,
        operation: DATETIME_OP,
        params: datetimeParams(),
      })),
    ],
  });
}, 60_000);
afterAll(() => server?.close());

describe.runIf(zeepInstalled).each(portKeys)("zeep over %s", (portKey) => {
  const { port, binding, http } = PORTS[portKey];

  it.each(opNames)(`%s: zeep decodes the answer and the server got the call`, (op) => {
    const outcome = output.results[port][op];
    expect(outcome.error, `zeep ${port}/${op} failed`).toBeUndefined();
    const got = fromZeep(outcome.value);
    const sent = expectedFromZeep(op, http);
    const limitation = ZEEP_LIMITATIONS[`${portKey}/${op}`];
    if (limitation) {
      expect(got, limitation.why).toEqual(limitation.zeepGives(sent));
      expect(got, `zeep no longer shows: ${limitation.why}`).not.toEqual(sent);
    } else {
      expect(got).toEqual(sent);
    }

    const received = server.calls.filter(
      (c) =>
        c.operation === op &&
        c.context.binding === binding &&
        c.params.strIdentifier !== PROBE_MARK &&
        c.params.triggerId !== DATETIME_MARK,
    );
    expect(received).toHaveLength(1);
    expect(received[0].context.credentials.username).toBe(CREDENTIALS.username);
    expect(received[0].context.credentials.password).toBe(CREDENTIALS.password);
    expect(received[0].params).toEqual(expectedParams(op, http));
  });
});

describe.runIf(zeepInstalled)("zeep and HTTP parameters it is not given", () => {
  it(`HttpPost: ${ZEEP_HTTP_OMITTED_PARAM.HttpPost}`, () => {
    expect(output.probes[0].error).toBeUndefined();
    const probe = server.calls.filter(
      (c) => c.context.binding === "httpPost" && c.params.strIdentifier === PROBE_MARK,
    );
    expect(probe).toHaveLength(1);
    expect(probe[0].params.strName).toBe("None");
  });

  it(`HttpGet: ${ZEEP_HTTP_OMITTED_PARAM.HttpGet}`, () => {
    expect(output.probes[1].error).toBe(
      "Fault: b'System.InvalidOperationException: Missing parameter: strName.'",
    );
    expect(
      server.calls.filter((c) => c.context.binding === "httpGet" && c.params.strIdentifier === PROBE_MARK),
    ).toEqual([]);
  });
});

describe.runIf(zeepInstalled)("zeep's HTTP ports and a Python datetime", () => {
  it.each([
    [2, "httpPost"],
    [3, "httpGet"],
  ] as const)(
    "probe %i (%s): sent as `2024-01-02 03:04:05`, received as xs:dateTime text",
    (index, binding) => {
      expect(output.probes[index].error).toBeUndefined();
      const calls = server.calls.filter(
        (c) => c.context.binding === binding && c.params.triggerId === DATETIME_MARK,
      );
      expect(calls.map((c) => [c.params.fromDate, c.params.toDate])).toEqual([
        ["2024-01-02T03:04:05", "2024-02-01T00:00:00"],
      ]);
    },
  );
});

describe.runIf(zeepInstalled)("zeep", () => {
  it("is the 4.x line the limitations above were checked against", () => {
    expect(output.zeep).toMatch(/^4\./);
  });
});
