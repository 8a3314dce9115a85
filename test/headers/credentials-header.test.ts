// The AuthHeader pattern end to end: SoapHeaders.asmx's WSDL imported, then edited as its owner would
// (`service.credentialsHeader: AuthHeader`, and TraceHeader `required` on Echo), and generated. The
// client takes the header's fields in its config as it takes credential parameters, the server refuses a
// call without a required header (SOAP's MustUnderstand fault, as .NET does for a WS-I service; over HTTP
// GET/POST, which carry no headers, a refusal) and hands the header to the handler as
// context.credentials. The generated types are checked with tsc: per client, per call, in the handler.

import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAMESPACES } from "../asmx-host/constructs-cases.js";
import { close, importConstruct, listen, type Imported } from "./imported.js";

const NS = NAMESPACES.SoapHeaders;

/** The hand edits: credentials from AuthHeader (no longer listed per operation), TraceHeader required. */
const edit = (yaml: string) =>
  yaml
    .replace("  bindings: [soap11, soap12, httpGet, httpPost]\n", "$&  credentialsHeader: AuthHeader\n")
    .replaceAll("          - { record: AuthHeader }\n", "")
    .replace(/ {8}headers:\n(?! {10}- )/g, "")
    .replace(
      "{ record: TraceHeader, direction: inOut }",
      "{ record: TraceHeader, direction: inOut, required: true }",
    );

const calls: { op: string; credentials: unknown; headers: unknown }[] = [];
const handlers = {
  Login: (
    _: unknown,
    context: { credentials: unknown; soapHeaders: unknown; replyHeaders: Record<string, unknown> },
  ) => {
    calls.push({
      op: "Login",
      credentials: { ...(context.credentials as object) },
      headers: { ...(context.soapHeaders as object) },
    });
    const c = context.credentials as { Username?: string; Password?: string };
    if (c.Username !== "alice" || c.Password !== "wonderland") return false;
    context.replyHeaders.SessionHeader = { SessionId: "s-alice", Expires: "2030-01-02T03:04:05Z" };
    return true;
  },
  WhoAmI: (_: unknown, context: { credentials: { Username?: string } }) =>
    context.credentials.Username ?? null,
  Echo: ({ text }: { text?: string }) => text ?? null,
  Status: () => "status",
};

let imported: Imported;
let server: Server;
let ours: string;

beforeAll(async () => {
  imported = await importConstruct("SoapHeaders", edit);
  server = imported.createServer(handlers);
  ours = await listen(server);
}, 120_000);
afterAll(async () => {
  await close(server);
  imported?.cleanUp();
});

describe("credentials in a SOAP header (service.credentialsHeader)", () => {
  it.each(["soap11", "soap12"] as const)(
    "%s: the client's config carries them; the handler gets them as credentials",
    async (binding) => {
      const client = imported.createClient({
        baseUrl: ours,
        binding,
        Username: "alice",
        Password: "wonderland",
      });
      const received: unknown[] = [];
      expect(await client.Login!({}, { onSoapHeaders: (h: unknown) => received.push(h) })).toBe(true);
      expect(received).toEqual([
        { SessionHeader: { SessionId: "s-alice", Expires: "2030-01-02T03:04:05Z" } },
      ]);
      expect(calls.at(-1)).toEqual({
        op: "Login",
        credentials: { Username: "alice", Password: "wonderland" },
        headers: {},
      });
      expect(await client.WhoAmI!()).toBe("alice");
      const wrong = imported.createClient({ baseUrl: ours, binding, Username: "alice", Password: "x" });
      expect(await wrong.Login!()).toBe(false);
    },
  );

  it.each(["soap11", "soap12"] as const)(
    "%s: a call without a required header gets the MustUnderstand fault; the handler does not run",
    async (binding) => {
      const before = calls.length;
      const res = await send(binding, "Login", `<Login xmlns="${NS}" />`);
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(body).toContain(
        binding === "soap11"
          ? "<faultcode>soap:MustUnderstand</faultcode>"
          : "<soap:Value>soap:MustUnderstand</soap:Value>",
      );
      expect(body).toContain("Required SOAP header AuthHeader was not received.");
      expect(calls.length).toBe(before);
      // TraceHeader is required on Echo: with it the call runs, without it the fault.
      const trace = `<TraceHeader xmlns="${NS}"><Hops>1</Hops></TraceHeader>`;
      const auth = `<AuthHeader xmlns="${NS}"><Username>u</Username></AuthHeader>`;
      expect(
        (await send(binding, "Echo", `<Echo xmlns="${NS}"><text>t</text></Echo>`, auth + trace)).status,
      ).toBe(200);
      const without = await send(binding, "Echo", `<Echo xmlns="${NS}"><text>t</text></Echo>`, auth);
      expect(await without.text()).toContain("Required SOAP header TraceHeader was not received.");
      // Our client says so before sending.
      const client = imported.createClient({ baseUrl: ours, binding, Username: "u" });
      await expect(client.Echo!({ text: "t" })).rejects.toThrow(/SOAP header TraceHeader is required/);
    },
  );

  it("HTTP GET and POST carry no headers: an operation that requires one is refused there", async () => {
    const get = await fetch(`${ours}SoapHeaders.asmx/Login`);
    expect(get.status).toBe(500);
    expect(await get.text()).toMatch(/Login requires the SOAP header AuthHeader, which httpGet cannot carry/);
    const client = imported.createClient({ baseUrl: ours, binding: "httpPost", Username: "alice" });
    await expect(client.Login!()).rejects.toThrow(
      /requires the SOAP header AuthHeader, which httpPost cannot carry/,
    );
  });

  it("types the credentials, the headers per client and per call, and the handler's context", () => {
    const file = path.join(imported.dir, "out", "usage.ts");
    writeFileSync(
      file,
      `import { createClient } from "./client.js";
import { createServer, type SoapHeaders } from "./server.js";

export async function use(): Promise<void> {
  const client = createClient({ baseUrl: "http://x", binding: "soap11", Username: "u", Password: "p",
    soapHeaders: { SessionHeader: { SessionId: "s", Expires: "2030-01-02T03:04:05Z" } } });
  const ok: boolean = await client.Login({}, { onSoapHeaders: (h) => { const id: string | undefined = h.SessionHeader?.SessionId; void id; } });
  await client.Echo({ text: "t" }, { soapHeaders: { TraceHeader: { Hops: 1 } }, onSoapHeaders: (h) => void h.TraceHeader?.Hops });
  // @ts-expect-error: Login takes no TraceHeader
  await client.Login({}, { soapHeaders: { TraceHeader: { Hops: 1 } } });
  // @ts-expect-error: the credentials are the header's fields, strings
  createClient({ baseUrl: "http://x", binding: "soap11", Username: 1 });
  void ok;
}

const service: SoapHeaders = {
  Login: (_params, context) => {
    const user: string | undefined = context.credentials.Username;
    context.replyHeaders.SessionHeader = { SessionId: user ?? "", Expires: "2030-01-02T03:04:05Z" };
    // @ts-expect-error: Login answers no TraceHeader
    context.replyHeaders.TraceHeader = { Hops: 1 };
    return true;
  },
  WhoAmI: () => null,
  // TraceHeader is required on Echo: always there.
  Echo: (params, context) => String(context.soapHeaders.TraceHeader.Hops) + (params.text ?? ""),
  Status: (_params, context) => context.soapHeaders.SessionHeader?.SessionId ?? "none",
};
void createServer(service);
`,
    );
    const tsc = path.resolve(__dirname, "../../node_modules/typescript/bin/tsc");
    const result = spawnSync(
      process.execPath,
      [tsc, "-p", path.join(imported.dir, "out", "tsconfig.json"), "--noEmit"],
      {
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  }, 150_000);
});

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

function send(binding: "soap11" | "soap12", op: string, body: string, header?: string): Promise<Response> {
  const action = `${NS}${op}`;
  const head = header === undefined ? "" : `<soap:Header>${header}</soap:Header>`;
  return fetch(`${ours}SoapHeaders.asmx`, {
    method: "POST",
    headers:
      binding === "soap11"
        ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }
        : { "content-type": `application/soap+xml; charset=utf-8; action="${action}"` },
    body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${binding === "soap11" ? SOAP11 : SOAP12}">${head}<soap:Body>${body}</soap:Body></soap:Envelope>`,
  });
}
