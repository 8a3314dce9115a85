// Host header poisoning: the WSDL's soap:address and the help pages' links and form are built from the
// request; a forged Host (or X-Forwarded-Host without trustProxy) must never put a host there that the
// server was not told to trust, and a Host the URL parser refuses must still get an answer.

import { exchangeOnce } from "./connection.js";
import { judgeAnswer } from "./judge.js";
import { ENDPOINT } from "./requests.js";

/** The server configurations tried, by name. */
export const HOST_CONFIGS = {
  publicUrl: { publicUrl: "https://api.example/svc/ExternalAPIService.asmx" },
  allowedHosts: { allowedHosts: ["good.example"] },
  default: {},
} as const;
export type HostConfigName = keyof typeof HOST_CONFIGS;

export interface HostCase {
  readonly name: string;
  /** Header lines (without CRLF) sent instead of `Host: 127.0.0.1`. */
  readonly headers: readonly string[];
  /** Sent as an absolute-form target `http://{authority}/…` (RFC 9112 §3.2.2), whose authority replaces Host. */
  readonly authority?: string;
  /** Text of the forged host that must not appear in the page (lower case); "evil" when not given. */
  readonly mark?: string;
}

const HOST_CASES: readonly HostCase[] = [
  { name: "Host: evil.example", headers: ["Host: evil.example"] },
  { name: "Host: good.example@evil.example", headers: ["Host: good.example@evil.example"] },
  { name: "Host: evil.example/x?", headers: ["Host: evil.example/x?"] },
  { name: "Host with markup", headers: ['Host: evil.example"><script>x</script>'] },
  { name: "Host the URL parser refuses ([::1)", headers: ["Host: [::1"] },
  { name: "Host the URL parser refuses (space)", headers: ["Host: evil example"] },
  { name: "Host: evil.example:99999 (port out of range)", headers: ["Host: evil.example:99999"] },
  { name: "empty Host", headers: ["Host: "] },
  {
    name: "X-Forwarded-Host without trustProxy",
    headers: ["Host: 127.0.0.1", "X-Forwarded-Host: evil.example", "X-Forwarded-Proto: https"],
  },
  // Plain by the pattern, refused by the URL parser: the help pages once answered these 500 (a log line each).
  { name: "Host the URL parser refuses ([:::::])", headers: ["Host: [:::::]"], mark: "[:::::]" },
  { name: "Host the URL parser refuses ([1.2.3.4])", headers: ["Host: [1.2.3.4]"], mark: "[1.2.3.4]" },
  { name: "Host the URL parser refuses (1.2.3.256)", headers: ["Host: 1.2.3.256"], mark: "1.2.3.256" },
  // Absolute-form targets: the authority replaces Host, is checked as Host is, and is never concatenated to it.
  {
    name: "absolute-form target http://evil.example/…",
    headers: ["Host: 127.0.0.1"],
    authority: "evil.example",
  },
  {
    name: "absolute-form target with user info",
    headers: ["Host: 127.0.0.1"],
    authority: "good.example@evil.example",
  },
  {
    name: "absolute-form target, port out of range",
    headers: ["Host: 127.0.0.1"],
    authority: "evil.example:99999",
  },
  {
    name: "absolute-form target the URL parser refuses ([::1)",
    headers: ["Host: 127.0.0.1"],
    authority: "[::1",
    mark: "[::1",
  },
  {
    name: "absolute-form target the URL parser refuses ([:::::])",
    headers: ["Host: 127.0.0.1"],
    authority: "[:::::]",
    mark: "[:::::]",
  },
];

const HOST_PAGES = ["?WSDL", "", "?op=InsertSubscriberSid"] as const;

export interface HostVerdict {
  readonly config: HostConfigName;
  readonly page: string;
  readonly hostCase: string;
  readonly status: number;
  /** Undefined when fine. */
  readonly problem: string | undefined;
}

/**
 * `evil` may appear only where the configuration trusts any plain Host (the default, as ASMX does) and
 * the Host is exactly the plain `evil.example`.
 */
function evilAllowed(config: HostConfigName, c: HostCase): boolean {
  if (config !== "default") return false;
  return c.authority === undefined
    ? c.headers.length === 1 && c.headers[0] === "Host: evil.example"
    : c.authority === "evil.example";
}

/** A host with a URL right after it: a request target appended to a host (`http://good.examplehttps://x/…`). */
const APPENDED_URL = /[\w\].:-]https?:\/\//i;

async function checkHost(
  port: number,
  config: HostConfigName,
  page: string,
  c: HostCase,
  prefix = "",
): Promise<HostVerdict> {
  const target = `${c.authority === undefined ? "" : `http://${c.authority}`}${prefix}${ENDPOINT}${page}`;
  const request = Buffer.from(`GET ${target} HTTP/1.1\r\n${c.headers.join("\r\n")}\r\n\r\n`, "latin1");
  const outcome = await exchangeOnce(port, request, { timeoutMs: 10_000 });
  const base = { config, page: page || "(help)", hostCase: c.name };
  if (outcome.kind !== "answer") return { ...base, status: 0, problem: outcome.detail };
  const verdict = judgeAnswer(outcome);
  if (verdict) return { ...base, status: outcome.status, problem: verdict };
  if (outcome.status !== 200 && outcome.status !== 400)
    return { ...base, status: outcome.status, problem: `status ${outcome.status}` };
  const body = outcome.body.toString("utf8").toLowerCase();
  if (body.includes("<script>x"))
    return { ...base, status: outcome.status, problem: "markup from Host in the page" };
  if (APPENDED_URL.test(body))
    return { ...base, status: outcome.status, problem: "a URL appended to a host" };
  if (body.includes(c.mark ?? "evil") && !evilAllowed(config, c))
    return { ...base, status: outcome.status, problem: "names the forged host" };
  if (
    config === "publicUrl" &&
    outcome.status === 200 &&
    page === "?WSDL" &&
    !body.includes("https://api.example/svc/externalapiservice.asmx")
  ) {
    return { ...base, status: outcome.status, problem: "soap:address is not the publicUrl" };
  }
  return { ...base, status: outcome.status, problem: undefined };
}

/** Every page and Host case against a server running `config`, its endpoint below `prefix`. */
export async function runHostCases(
  port: number,
  config: HostConfigName,
  prefix = "",
): Promise<HostVerdict[]> {
  const out: HostVerdict[] = [];
  for (const page of HOST_PAGES)
    for (const c of HOST_CASES) out.push(await checkHost(port, config, page, c, prefix));
  return out;
}
