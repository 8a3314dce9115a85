// A malicious server for the generated client: one node:http server whose path prefix chooses the
// misbehaviour (endless body, slow drip, gzip bomb, cross-origin 307, 100,000 attributes, invalid
// UTF-8), plus a second origin that counts the requests a redirect would send it. Each case names the
// typed error the client must settle with.

import zlib from "node:zlib";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { SOAP11_RESPONSE_BODY } from "../fixtures/wire-samples.js";

export interface MaliciousCase {
  readonly name: string;
  /** Path prefix on the malicious server; the client's baseUrl is `{origin}{prefix}`. */
  readonly prefix: string;
  /** The error class the call must reject with. */
  readonly expected: "ResponseTooLargeError" | "TimeoutError" | "RedirectError" | "ResponseFormatError";
}

export const MALICIOUS_CASES: readonly MaliciousCase[] = [
  { name: "endless body", prefix: "/endless", expected: "ResponseTooLargeError" },
  { name: "slow drip (1 byte / 100 ms)", prefix: "/drip", expected: "TimeoutError" },
  { name: "gzip bomb (300 KB -> 300 MB)", prefix: "/gzip-bomb", expected: "ResponseTooLargeError" },
  { name: "307 to another origin", prefix: "/redirect", expected: "RedirectError" },
  { name: "100,000 attributes in the answer", prefix: "/attributes", expected: "ResponseFormatError" },
  { name: "invalid UTF-8 in the answer", prefix: "/invalid-utf8", expected: "ResponseFormatError" },
];

/** The client configuration every case uses: these are "the configured bounds". */
export const CLIENT_BOUNDS = { timeoutMs: 2000, maxResponseBytes: 4 * 1024 * 1024 } as const;

const SOAP_HEAD = SOAP11_RESPONSE_BODY.slice(0, SOAP11_RESPONSE_BODY.indexOf("<InsertSubscriberSidResponse"));

let bomb: Promise<Buffer> | undefined;
/** 300 MiB of an envelope's start and spaces, gzipped (about 300 KB); made once. */
function gzipBomb(): Promise<Buffer> {
  return (bomb ??= new Promise((resolve, reject) => {
    const gzip = zlib.createGzip({ level: 9 });
    const out: Buffer[] = [];
    gzip.on("data", (c: Buffer) => out.push(c));
    gzip.on("end", () => resolve(Buffer.concat(out)));
    gzip.on("error", reject);
    gzip.write(SOAP_HEAD);
    const spaces = Buffer.alloc(1024 * 1024, " ");
    for (let i = 0; i < 300; i++) gzip.write(spaces);
    gzip.end();
  }));
}

function attributesAnswer(): Buffer {
  const attrs: string[] = [];
  for (let i = 0; i < 100_000; i++) attrs.push(` a${i}=""`);
  return Buffer.from(
    SOAP11_RESPONSE_BODY.replace(
      "<InsertSubscriberSidResult>",
      `<InsertSubscriberSidResult${attrs.join("")}>`,
    ),
  );
}

export interface MaliciousServers {
  readonly origin: string;
  /** Requests the redirect's target origin received (must stay 0). */
  readonly otherOriginRequests: () => number;
  close(): Promise<void>;
}

export async function startMaliciousServers(): Promise<MaliciousServers> {
  let otherRequests = 0;
  const other: Listening = await listenOnLoopback((req, res) => {
    otherRequests++;
    req.resume();
    res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
    res.end(SOAP11_RESPONSE_BODY);
  });
  const gz = await gzipBomb();
  const attributes = attributesAnswer();
  const timers = new Set<NodeJS.Timeout>();
  const main = await listenOnLoopback((req, res) => {
    const prefix = (req.url ?? "/").split("/", 2)[1];
    req.resume();
    req.on("end", () => {
      switch (prefix) {
        case "endless": {
          res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
          res.write(SOAP_HEAD);
          const chunk = Buffer.alloc(64 * 1024, " ");
          let sent = 0;
          const pump = () => {
            // Bounded on this side too: 1 GiB at most.
            while (!res.destroyed && sent < 1024 ** 3) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once("drain", pump);
            }
            res.end();
          };
          pump();
          return;
        }
        case "drip": {
          res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
          let at = 0;
          const body = Buffer.from(SOAP11_RESPONSE_BODY);
          const timer = setInterval(() => {
            if (res.destroyed || at >= body.length) {
              clearInterval(timer);
              timers.delete(timer);
              res.end();
              return;
            }
            res.write(body.subarray(at, ++at));
          }, 100);
          timers.add(timer);
          return;
        }
        case "gzip-bomb":
          res.writeHead(200, {
            "content-type": "text/xml; charset=utf-8",
            "content-encoding": "gzip",
            "content-length": gz.length,
          });
          res.end(gz);
          return;
        case "redirect":
          res.writeHead(307, { location: `${other.origin}/ExternalAPIService.asmx`, "content-length": 0 });
          res.end();
          return;
        case "attributes":
          res.writeHead(200, {
            "content-type": "text/xml; charset=utf-8",
            "content-length": attributes.length,
          });
          res.end(attributes);
          return;
        case "invalid-utf8": {
          const body = Buffer.from(SOAP11_RESPONSE_BODY.replace("<soap:Body>", "<soap:Body><!--\u0000-->"));
          const at = body.indexOf("\u0000");
          body[at] = 0xff;
          res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-length": body.length });
          res.end(body);
          return;
        }
        default:
          res.writeHead(404, { "content-length": 0 });
          res.end();
      }
    });
  });
  return {
    origin: main.origin,
    otherOriginRequests: () => otherRequests,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([main.close(), other.close()]);
    },
  };
}

export interface ClientCaseResult {
  readonly name: string;
  /** The error's class name, "resolved" when the call resolved. */
  readonly got: string;
  readonly message: string;
  readonly ms: number;
}

/** Calls InsertSubscriberSid through the generated client against one malicious route. */
export async function runClientCase(origin: string, c: MaliciousCase): Promise<ClientCaseResult> {
  const { createClient } = await import("../../generated/client.js");
  const client = createClient({
    baseUrl: `${origin}${c.prefix}`,
    binding: "soap11",
    username: "u",
    password: "p",
    ...CLIENT_BOUNDS,
  });
  const started = performance.now();
  try {
    await client.InsertSubscriberSid({ strEmail: "a@b", strMailingListID: "1", strFormat: "HTML" });
    return { name: c.name, got: "resolved", message: "", ms: performance.now() - started };
  } catch (error) {
    const e = error as Error;
    return {
      name: c.name,
      got: e?.constructor?.name ?? typeof error,
      message: String(e?.message).slice(0, 120),
      ms: performance.now() - started,
    };
  }
}
