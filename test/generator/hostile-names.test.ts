// Names and docs that try to break the output (fixtures/hostile-names.yaml), end to end: the spec validates,
// generates, and the output type-checks under the generated tsconfig together with a consumer that uses the
// renamed records, the typed credentials and parameters named __proto__, constructor and toString; then the
// generated client calls the generated server (in process, through its fetch handler) on every binding, and
// __proto__ reaches the handler. Also: the SOAPAction of a namespace without a trailing slash, and a service
// without credentials that type-checks with no credential keys.

import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFiles } from "../../generator/generate.js";
import type { GeneratedFile } from "../../generator/generated-file.js";
import { REPO, removeTempDirs, tempDir } from "./fixtures/index.js";

const HOSTILE = path.join(REPO, "test/generator/fixtures/hostile-names.yaml");
const HOSTILE_TEXT = readFileSync(HOSTILE, "utf8");
const TSC = path.join(REPO, "node_modules/typescript/bin/tsc");
const BINDINGS = ["soap11", "soap12", "httpGet", "httpPost"] as const;

afterAll(removeTempDirs);

/** Writes the generated files into a fresh folder that resolves @types/node as a project would. */
function writeOutput(files: readonly GeneratedFile[], extra: Readonly<Record<string, string>> = {}): string {
  const dir = tempDir();
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
    writeFileSync(path.join(dir, file.path), file.content);
  }
  mkdirSync(path.join(dir, "node_modules"));
  symlinkSync(path.join(REPO, "node_modules/@types"), path.join(dir, "node_modules/@types"), "dir");
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  return dir;
}

/** tsc over the folder with its generated tsconfig.json: the error lines, [] when clean. */
function typeCheck(dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSC, "-p", "tsconfig.json", "--pretty", "false"],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const lines = `${stdout}\n${stderr}`.split("\n").filter((line) => /error TS\d+/.test(line));
        if (error && lines.length === 0)
          reject(new Error(`tsc failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(lines);
      },
    );
  });
}

async function generate(text: string, name: string): Promise<readonly GeneratedFile[]> {
  const spec = path.join(tempDir(), name);
  writeFileSync(spec, text);
  const generated = await generateFiles({ spec, specFile: `test/${name}` });
  if (!generated.ok)
    throw new Error(generated.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`).join("\n"));
  return generated.files;
}

/** A consumer of the hostile output: compiles only if every type is as the spec says. */
const CONSUMER = `import { createClient, soap11, type ClientConfig } from "./client.js";
import { createHandler, type CallContext, type Hostile } from "./server.js";
import type { Date_, Error_, HostileCredentials, Promise_ } from "./types.js";

export const credentials: HostileCredentials = { accountId: 7, userName: "u" };
// @ts-expect-error userName is a required credential
export const withoutUser: HostileCredentials = { accountId: 7 };
// @ts-expect-error accountId is an int credential: a number
export const textAccount: HostileCredentials = { accountId: "7", userName: "u" };
export const config: ClientConfig = { baseUrl: "http://127.0.0.1/", binding: "soap12", ...credentials, strToken: "t" };
// @ts-expect-error the credentials are required in the config
export const bare: ClientConfig = { baseUrl: "http://127.0.0.1/", binding: "soap11" };

// The global Date is still the one a dateTime parameter takes; the record is Date_.
export const when: Date = new Date(0);
export const day: Date_ = { Day: 1, When: "2024-01-01T00:00:00" };
export const failure: Error_ = { Code: 1 };
export const promised: Promise<Promise_> = Promise.resolve({ Value: "v" });

export const implementation: Hostile = {
  Echo: (params, context: CallContext) => {
    const account: number = context.credentials.accountId;
    const user: string = context.credentials.userName;
    const token: string | undefined = context.credentials.strToken;
    return { Value: [params.__proto__, params.constructor, params.toString, account, user, token].join("|") };
  },
  toString: (_params, context) => context.credentials.accountId,
  Today: (params) => ({ Day: Number(params.at.slice(8, 10)), When: params.at }),
  Errors: () => [{ Code: 1, Message: "*/" }],
};

export async function use(): Promise<string> {
  const handler = createHandler(implementation);
  const client = createClient({ ...config, fetch: (url, init) => handler.fetch(new Request(url, init)) });
  await client.Today({ at: when });
  await client.toString();
  void soap11;
  const echoed = await client.Echo({ ["__proto__"]: "p", constructor: "c", toString: "t" });
  return echoed?.Value ?? "";
}
`;

describe("hostile names and docs", () => {
  let files: readonly GeneratedFile[];
  let dir: string;
  beforeAll(async () => {
    files = await generate(HOSTILE_TEXT, "hostile-names.yaml");
    dir = writeOutput(files, { "consumer.ts": CONSUMER });
  }, 120_000);

  it("generates output in which no doc ends a comment early", () => {
    for (const file of files.filter((f) => f.path.endsWith(".ts") && !f.path.startsWith("runtime/"))) {
      // In a comment line, "*/" only closes the comment at its end; spec text never closes one. (In code,
      // the texts are string literals, which type-checking below covers.)
      for (const line of file.content.split("\n")) {
        const trimmed = line.trim();
        if (!trimmed.startsWith("*") && !trimmed.startsWith("/*")) continue;
        const at = trimmed.indexOf("*/");
        if (at >= 0) expect(trimmed.slice(at), `${file.path}: ${line}`).toBe("*/");
      }
    }
    const types = files.find((f) => f.path === "types.ts")!.content;
    expect(types).toContain("export interface Date_ {");
    expect(types).toContain("export interface Promise_ {");
    expect(types).toContain("export interface Error_ {");
    expect(types).toContain("*\\/");
    expect(types).toMatch(/at: string \| Date;/);
    // The doc of the parameter named __proto__ is a key of docs.ts, not the object's prototype.
    expect(files.find((f) => f.path === "docs.ts")!.content).toContain(
      '["__proto__"]: "A parameter named __proto__ */."',
    );
  });

  it("type-checks under the generated tsconfig with a consumer of every hostile name", async () => {
    expect(await typeCheck(dir)).toEqual([]);
  }, 120_000);

  it("lists the renamed records under their own names on the wire and the .NET SOAPAction in the WSDL", () => {
    const wsdl = files.find((f) => f.path.endsWith(".wsdl"))!.content;
    expect(wsdl).toContain('<s:complexType name="Date">');
    expect(wsdl).toContain('<s:complexType name="ArrayOfError">');
    expect(wsdl).toContain('soapAction="urn:example:hostile:v2/Echo"');
    expect(wsdl).not.toContain('soapAction="urn:example:hostile:v2Echo"');
  });

  describe("through the generated server", () => {
    interface Loaded {
      createClient(config: object): Record<string, (params?: object) => Promise<unknown>>;
      handler: { fetch(request: Request): Promise<Response> };
      implementation: object;
    }
    let loaded: Loaded;
    const sent: { url: string; headers: Headers }[] = [];
    beforeAll(async () => {
      const consumer = (await import(path.join(dir, "consumer.ts"))) as {
        implementation: object;
        config: object;
      };
      const client = (await import(path.join(dir, "client.ts"))) as Pick<Loaded, "createClient">;
      const server = (await import(path.join(dir, "server.ts"))) as {
        createHandler(impl: object): Loaded["handler"];
      };
      loaded = {
        createClient: client.createClient,
        handler: server.createHandler(consumer.implementation),
        implementation: consumer.implementation,
      };
    }, 120_000);

    const clientOf = (binding: string, credentials: object = { accountId: 7, userName: "u" }) =>
      loaded.createClient({
        baseUrl: "http://127.0.0.1/",
        binding,
        ...credentials,
        fetch: (url: string, init: RequestInit) => {
          const request = new Request(url, init);
          sent.push({ url, headers: request.headers });
          return loaded.handler.fetch(request);
        },
      });

    it.each(BINDINGS)(
      "delivers __proto__, constructor and toString to the handler over %s",
      async (binding) => {
        const client = clientOf(binding, { accountId: 7, userName: "u", strToken: "t" });
        const echoed = (await client.Echo!({ ["__proto__"]: "p", constructor: "c", toString: "t" })) as {
          Value: string;
        };
        expect(echoed.Value).toBe("p|c|t|7|u|t");
        // Absent, they are undefined in the handler: never Object.prototype's members.
        const absent = (await client.Echo!({})) as { Value: string };
        expect(absent.Value).toBe("|||7|u|t");
        expect(await client.toString!()).toBe(7);
      },
    );

    it("sends and routes the .NET SOAPAction for a namespace without a trailing slash", async () => {
      sent.length = 0;
      await clientOf("soap11").Today!({ at: "2024-05-06T00:00:00" });
      expect(sent[0]!.headers.get("soapaction")).toBe('"urn:example:hostile:v2/Today"');
      await clientOf("soap12").Today!({ at: "2024-05-06T00:00:00" });
      expect(sent[1]!.headers.get("content-type")).toContain('action="urn:example:hostile:v2/Today"');
      const body =
        '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
        '<soap:Body><toString xmlns="urn:example:hostile:v2"><intAccount>5</intAccount><strUser>u</strUser></toString></soap:Body></soap:Envelope>';
      const post = (action: string) =>
        loaded.handler.fetch(
          new Request("http://127.0.0.1/Hostile.asmx", {
            method: "POST",
            headers: { "content-type": "text/xml; charset=utf-8", soapaction: action },
            body,
          }),
        );
      const ok = await post('"urn:example:hostile:v2/toString"');
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("<toStringResult>5</toStringResult>");
      const glued = await post('"urn:example:hostile:v2toString"');
      expect(glued.status).toBe(500);
      expect(await glued.text()).toContain(
        "Server did not recognize the value of HTTP Header SOAPAction: urn:example:hostile:v2toString.",
      );
    });

    it("refuses an implementation whose toString operation is only Object.prototype's", async () => {
      const server = (await import(path.join(dir, "server.ts"))) as { createHandler(impl: object): unknown };
      const { toString: _own, ...inherited } = loaded.implementation as Record<string, unknown>;
      expect(() => server.createHandler(inherited)).toThrow("The implementation has no toString method.");
    });

    it("writes an int credential as an int and refuses a credential of the wrong type in the client", async () => {
      sent.length = 0;
      await clientOf("httpGet", { accountId: 42, userName: "u" }).toString!();
      expect(new URL(sent[0]!.url).searchParams.get("intAccount")).toBe("42");
      await expect(clientOf("soap11", { accountId: "x", userName: "u" }).toString!()).rejects.toThrow(
        /intAccount/,
      );
    });
  });
});

describe("a service without credentials", () => {
  it("type-checks a client config with no credential keys", async () => {
    const text = HOSTILE_TEXT.replace(/ {2}credentials:\n(?: {4}- .*\n)+/, "");
    expect(text).not.toContain("credentials:");
    const files = await generate(text, "no-credentials.yaml");
    const types = files.find((f) => f.path === "types.ts")!.content;
    expect(types).toContain("export interface HostileCredentials {}");
    const dir = writeOutput(files, {
      "consumer.ts": `import { createClient } from "./client.js";
import type { Hostile } from "./server.js";
import type { HostileClient } from "./client.js";
export const client: HostileClient = createClient({ baseUrl: "http://127.0.0.1/", binding: "httpPost" });
export const implementation: Hostile = {
  Echo: (_params, context) => ({ Value: String(Object.keys(context.credentials).length) }),
  toString: () => 0,
  Today: (params) => ({ Day: 1, When: params.at }),
  Errors: () => [],
};
`,
    });
    expect(await typeCheck(dir)).toEqual([]);
  }, 120_000);
});
