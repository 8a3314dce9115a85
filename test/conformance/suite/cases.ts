// Loads the cases (test/conformance/cases/*.yaml), checks them against the reference's reading of the
// spec, and expands each across its bindings and roles. A case file maps operation names to lists of
// cases; see docs/conformance.md "The conformance suite" for the format.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { FIXTURE_KEYS, SUITE_FIXTURES, type FixtureKey, type Fixtures } from "../fixtures.js";
import { defaultException, type RefError, type Side } from "../reference/errors.js";
import type { WireRecord, WireResult } from "../reference/response.js";
import { REF_BINDINGS, type RefBinding, type RefService } from "../reference/spec.js";

export type Role = "client" | "server";
const ROLES: readonly Role[] = ["server", "client"];

/**
 * protocol: what every ASMX host does (routing, wire shapes, .NET's conversion of values, the refusals of
 * docs/wire.md §1a), so a legacy host passes it. service: what our spec's validation and our deliberate
 * differences from ASMX add (required strings, enum/format/length rules, our limits), which a legacy host
 * may not do. A case without `profile` is protocol.
 */
export type Profile = "protocol" | "service";
const PROFILES: readonly Profile[] = ["protocol", "service"];

/**
 * Error codes only our validation produces (docs/spec.md "Validation rules and error codes"): a case expecting
 * one is a service case, whatever its file says, so a legacy host is never held to it as protocol.
 */
export const SERVICE_ONLY_CODES: ReadonlySet<string> = new Set([
  "RequiredParameter",
  "InvalidValue",
  "InvalidFormat",
  "TooLong",
  "OutOfRange",
  "InvalidName",
  "InvalidUrl",
  "InvalidCsv",
  "InvalidDemographicFields",
  "MissingIdentifier",
  "InvalidInterval",
  "SoapActionMismatch",
  "TooDeep",
  "TooManyAttributes",
  "TooManyElements",
  "BodyTooLarge",
  "InvalidEncoding",
  "InvalidEnvelope",
]);

/** Ways a request departs from what a .NET client sends (protocol failure cases). */
export interface Tamper {
  /** Names this operation instead (body element or path), also in the action. */
  readonly operationName?: string;
  /** The SOAPAction (1.1) or action parameter (1.2): a literal URI, another operation's, or none at all. */
  readonly action?: string;
  readonly actionOf?: string;
  readonly noAction?: boolean;
  /** The SOAP 1.1 SOAPAction header exactly as given (no quotes added). */
  readonly soapActionHeader?: string;
  readonly contentType?: string;
  readonly method?: string;
  /** The whole body; {env}, {ns}, {op}, {params}, {params:prefix}, {nested:N} are filled in. */
  readonly body?: string;
  /** Pads the body with trailing whitespace (or a form field) to this many bytes. */
  readonly padBodyTo?: number;
  /**
   * HTTP GET/POST: the form text exactly as given (the query of a GET, the body of a POST), `{params}`
   * replaced by the reference form; for escapes URLSearchParams would not write.
   */
  readonly form?: string;
}

export interface CaseError {
  readonly code: string;
  readonly side: Side;
  readonly status: number;
  readonly exception?: string;
  /**
   * fault: a SOAP fault; text: the `<ExceptionType>: <message>` 500 text; bare: a refusal at the HTTP level
   * without a fault envelope (docs/wire.md §1a: 400, 405, 415), where ASMX sends an empty body and ours
   * one line of text (or nothing, for 415).
   */
  readonly answer?: "fault" | "text" | "bare";
}

export interface ConformanceCase {
  readonly file: string;
  readonly operation: string;
  readonly name: string;
  /** Wire text per parameter; one not listed is sent empty; credentials default to u / p. */
  readonly input: Readonly<Record<string, string>>;
  readonly omit: readonly string[];
  readonly bindings: readonly RefBinding[];
  readonly roles: readonly Role[];
  readonly tamper?: Tamper;
  readonly profile: Profile;
  /**
   * Server role: the wire text each listed parameter reaches the handler as, where it differs from the
   * input (HTTP GET/POST values .NET converts: `2024-01-02 03:04:05` arrives as `2024-01-02T03:04:05`).
   */
  readonly received?: Readonly<Record<string, string>>;
  readonly result?: WireResult;
  readonly error?: CaseError;
  /** False for cases a live endpoint cannot be held to (their limits are its own). */
  readonly remote: boolean;
  /** The fixtures its input names (`{ fixture: list }`): data that must exist on a live endpoint. */
  readonly fixtures: readonly FixtureKey[];
}

export interface ExpandedCase {
  /** `Op/binding/name` */
  readonly path: string;
  readonly role: Role;
  readonly binding: RefBinding;
  readonly case: ConformanceCase;
}

export const CASES_DIR = fileURLToPath(new URL("../cases/", import.meta.url));
const CASE_KEYS = new Set([
  "name",
  "input",
  "omit",
  "bindings",
  "roles",
  "tamper",
  "profile",
  "received",
  "result",
  "error",
  "remote",
]);
const TAMPER_KEYS = new Set([
  "operationName",
  "action",
  "actionOf",
  "noAction",
  "soapActionHeader",
  "contentType",
  "method",
  "body",
  "padBodyTo",
  "form",
]);
const ERROR_KEYS = new Set(["code", "side", "status", "exception", "answer"]);

type Raw = Record<string, unknown>;

function isObject(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fixture values wire texts are read with, and the keys they named. */
interface Reading {
  readonly fixtures: Fixtures;
  readonly used: Set<FixtureKey>;
}

const NO_FIXTURES: Reading = { fixtures: SUITE_FIXTURES, used: new Set() };

/**
 * A wire text: a quoted string, `{ repeat: "x", times: 1200 }` for long values, `{ fixture: list }` for
 * data that must exist on the endpoint (fixtures.ts), or a list of those, concatenated.
 */
function wireText(value: unknown, where: string, reading: Reading = NO_FIXTURES): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((piece, i) => wireText(piece, `${where}[${i}]`, reading)).join("");
  if (isObject(value) && typeof value.repeat === "string" && typeof value.times === "number") {
    return value.repeat.repeat(value.times);
  }
  if (isObject(value) && typeof value.fixture === "string" && Object.keys(value).length === 1) {
    const key = value.fixture as FixtureKey;
    if (!FIXTURE_KEYS.includes(key))
      throw new Error(`${where}: fixture ${key} is none of ${FIXTURE_KEYS.join(", ")}`);
    reading.used.add(key);
    return reading.fixtures[key];
  }
  throw new Error(
    `${where}: wire values are strings (quote numbers and booleans), got ${JSON.stringify(value)}`,
  );
}

function wireRecord(value: unknown, where: string, reading: Reading = NO_FIXTURES): WireRecord {
  if (!isObject(value)) throw new Error(`${where}: expected a map of wire texts`);
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, wireText(v, `${where}.${k}`, reading)]),
  );
}

function checkKeys(raw: Raw, allowed: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(raw)) if (!allowed.has(key)) throw new Error(`${where}: unknown key ${key}`);
}

function readResult(raw: unknown, kind: string, where: string): WireResult {
  if (kind === "scalar") return wireText(raw, where);
  if (kind === "list") {
    if (!Array.isArray(raw)) throw new Error(`${where}: a list result is a sequence of records`);
    return raw.map((r, i) => wireRecord(r, `${where}[${i}]`));
  }
  if (kind === "record") return wireRecord(raw, where);
  if (!isObject(raw) || !Array.isArray(raw.rows))
    throw new Error(`${where}: a DataSet result is { rows: [...] }`);
  return { rows: raw.rows.map((r, i) => wireRecord(r, `${where}.rows[${i}]`)) };
}

function readError(raw: unknown, where: string): CaseError {
  if (!isObject(raw) || typeof raw.code !== "string") throw new Error(`${where}: error needs a code`);
  checkKeys(raw, ERROR_KEYS, where);
  const side = raw.side ?? "client";
  if (side !== "client" && side !== "server") throw new Error(`${where}: side is client or server`);
  const answer = raw.answer;
  if (answer !== undefined && answer !== "fault" && answer !== "text" && answer !== "bare")
    throw new Error(`${where}: answer is fault, text or bare`);
  return {
    code: raw.code,
    side,
    status: typeof raw.status === "number" ? raw.status : 500,
    ...(typeof raw.exception === "string" ? { exception: raw.exception } : {}),
    ...(answer ? { answer } : {}),
  };
}

function readCase(
  raw: unknown,
  operation: string,
  file: string,
  service: RefService,
  fixtures: Fixtures,
): ConformanceCase {
  const op = service.operations.get(operation);
  if (!op) throw new Error(`${file}: ${operation} is not an operation of the spec`);
  if (!isObject(raw) || typeof raw.name !== "string")
    throw new Error(`${file}: ${operation}: every case needs a name`);
  const where = `${file}: ${operation}/${raw.name}`;
  checkKeys(raw, CASE_KEYS, where);
  const paramNames = new Set(op.params.map((p) => p.name));
  const reading: Reading = { fixtures, used: new Set() };
  const input = raw.input === undefined ? {} : wireRecord(raw.input, `${where} input`, reading);
  const omit = (raw.omit ?? []) as string[];
  for (const name of [...Object.keys(input), ...omit]) {
    if (!paramNames.has(name)) throw new Error(`${where}: ${name} is not a parameter of ${operation}`);
  }
  const bindings = (raw.bindings ?? REF_BINDINGS) as RefBinding[];
  const roles = (raw.roles ?? ROLES) as Role[];
  if (bindings.some((b) => !REF_BINDINGS.includes(b)))
    throw new Error(`${where}: bindings are ${REF_BINDINGS.join(", ")}`);
  if (roles.some((r) => !ROLES.includes(r))) throw new Error(`${where}: roles are server and client`);
  let tamper: Tamper | undefined;
  if (raw.tamper !== undefined) {
    if (!isObject(raw.tamper)) throw new Error(`${where}: tamper is a map`);
    checkKeys(raw.tamper, TAMPER_KEYS, `${where} tamper`);
    tamper = raw.tamper as Tamper;
  }
  if ((omit.length > 0 || tamper) && roles.includes("client")) {
    throw new Error(
      `${where}: a typed client cannot send omitted parameters or tampered requests; pin roles: [server]`,
    );
  }
  if ((raw.result === undefined) === (raw.error === undefined))
    throw new Error(`${where}: give exactly one of result and error`);
  const profile = (raw.profile ?? "protocol") as Profile;
  if (!PROFILES.includes(profile)) throw new Error(`${where}: profile is protocol or service`);
  if (profile === "protocol" && isObject(raw.error) && SERVICE_ONLY_CODES.has(String(raw.error.code))) {
    throw new Error(
      `${where}: ${String(raw.error.code)} is our validation, not every ASMX host's: mark it profile: service`,
    );
  }
  let received: Record<string, string> | undefined;
  if (raw.received !== undefined) {
    received = wireRecord(raw.received, `${where} received`);
    for (const name of Object.keys(received)) {
      if (!paramNames.has(name))
        throw new Error(`${where}: received ${name} is not a parameter of ${operation}`);
    }
    if (roles.includes("client"))
      throw new Error(`${where}: received is what the server's handler gets; pin roles: [server]`);
  }
  const base = {
    file,
    operation,
    name: raw.name,
    input,
    omit,
    bindings,
    roles,
    profile,
    ...(received ? { received } : {}),
    remote: raw.remote !== false,
    fixtures: [...reading.used],
  };
  const withTamper = tamper ? { ...base, tamper } : base;
  return raw.result !== undefined
    ? { ...withTamper, result: readResult(raw.result, op.result.kind, `${where} result`) }
    : { ...withTamper, error: readError(raw.error, `${where} error`) };
}

/**
 * Every case of every file of the folders, checked; throws naming the file and case at fault. `fixtures`
 * fills `{ fixture: … }` (default: the suite's values).
 */
export function loadCases(
  service: RefService,
  dirs: string | readonly string[] = CASES_DIR,
  fixtures: Fixtures = SUITE_FIXTURES,
): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const files = (typeof dirs === "string" ? [dirs] : dirs).flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(".yaml"))
      .sort()
      .map((f) => ({ dir, file: f })),
  );
  for (const { dir, file } of files) {
    const doc: unknown = parse(readFileSync(join(dir, file), "utf8"));
    if (!isObject(doc)) throw new Error(`${file}: expected a map of operation names to case lists`);
    for (const [operation, list] of Object.entries(doc)) {
      if (!Array.isArray(list)) throw new Error(`${file}: ${operation}: expected a list of cases`);
      for (const raw of list) cases.push(readCase(raw, operation, file, service, fixtures));
    }
  }
  const seen = new Set<string>();
  for (const c of cases) {
    for (const binding of c.bindings) {
      const path = `${c.operation}/${binding}/${c.name}`;
      if (seen.has(path)) throw new Error(`${c.file}: case ${path} is defined twice`);
      seen.add(path);
    }
  }
  return cases;
}

/** The cases of a profile ("all": every case). */
export function casesOf(cases: readonly ConformanceCase[], profile: Profile | "all"): ConformanceCase[] {
  return profile === "all" ? [...cases] : cases.filter((c) => c.profile === profile);
}

export function expandCases(cases: readonly ConformanceCase[]): ExpandedCase[] {
  return cases.flatMap((c) =>
    c.roles.flatMap((role) =>
      c.bindings.map((binding) => ({ path: `${c.operation}/${binding}/${c.name}`, role, binding, case: c })),
    ),
  );
}

/** The refusal the case expects on this binding, defaults filled in. */
export function expectedError(error: CaseError, binding: RefBinding, parameter?: string): RefError {
  const soap = binding === "soap11" || binding === "soap12";
  return {
    code: error.code,
    side: error.side,
    status: error.status,
    exception: error.exception ?? defaultException(error.code, error.side),
    answer: error.answer ?? (soap ? "fault" : "text"),
    ...(parameter ? { parameter } : {}),
  };
}

/** The wire values a case sends, credentials filled in unless the case sets them. */
export function sentValues(
  c: ConformanceCase,
  credentials: { username: string; password: string },
): Record<string, string> {
  return { strUsername: credentials.username, strPassword: credentials.password, ...c.input };
}
