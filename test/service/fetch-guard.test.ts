/**
 * The import worker's guarded download (service/common/fetch-guard.ts). Every server here listens on
 * 127.0.0.1; host names are answered by a fake resolver, so nothing leaves the machine.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { createSecureContext } from "node:tls";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkImportUrl,
  FetchFailedError,
  ImportUrlRefusedError,
  openGuardedStream,
  sameFileVersion,
  type GuardOptions,
  type ResolvedAddress,
} from "../../service/common/fetch-guard.js";

// A self-signed certificate for files.test (valid until 2126), only to see the TLS handshake start.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVaIMUgFfbb5UhF79
WvtZ9aM6R768jZ5ehFbaWN3IaBOhRANCAAR6xfK1CxKB/SNKmyozgYuFhM230D4+
s7EgKiTBaSnzw4y0LwY2myFi7SxA180NhKD+mgpkfn36s5COO71zCuyf
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUYS7L65ZwJnkxyVuTnpOsSHHTpKIwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKZmlsZXMudGVzdDAgFw0yNjExMjMxNDU4MjVaGA8yMTI2MTAz
MDE0NTgyNVowFTETMBEGA1UEAwwKZmlsZXMudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABHrF8rULEoH9I0qbKjOBi4WEzbfQPj6zsSAqJMFpKfPDjLQvBjab
IWLtLEDXzQ2EoP6aCmR+ffqzkI47vXMK7J+jajBoMB0GA1UdDgQWBBT9M8Mt4P8s
aMVIlyNfKNvencOCDjAfBgNVHSMEGDAWgBT9M8Mt4P8saMVIlyNfKNvencOCDjAP
BgNVHRMBAf8EBTADAQH/MBUGA1UdEQQOMAyCCmZpbGVzLnRlc3QwCgYIKoZIzj0E
AwIDSAAwRQIgJnq575zqLrXbyBNLU86bn43Z9wQMRPIotyX9KFudktUCIQC+efsz
AiiP+Y6wyTr2owXSMqEq6YugU0bUVflU0Wh/qg==
-----END CERTIFICATE-----
`;

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

interface TestServer {
  port: number;
  /** Every request received, in order. */
  requests: IncomingMessage[];
  /** Every accepted socket, in order. */
  sockets: Socket[];
  base: string;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(handler: Handler): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    void Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  server.on("connection", (socket: Socket) => sockets.push(socket));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, "close");
  });
  return { port, requests, sockets, base: `http://127.0.0.1:${port}` };
}

/** A fake resolver answering from a table, recording every question. */
function fakeLookup(table: Record<string, string[]>): {
  lookup: (hostname: string) => Promise<ResolvedAddress[]>;
  calls: string[];
} {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { lookup, calls };
}

function options(overrides: Partial<GuardOptions> = {}): GuardOptions {
  return {
    allowHosts: ["127.0.0.1"],
    maxBytes: 1_000_000,
    timeoutMs: 10_000,
    lookup: fakeLookup({}).lookup,
    ...overrides,
  };
}

async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Resolves when the socket is closed; rejects after 5 s so a socket left open fails the test. */
async function closedWithin5s(socket: Socket): Promise<void> {
  if (socket.destroyed) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the socket was not closed")), 5_000);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Writes `chunk` until `total` bytes were written or the response was closed, honouring backpressure. */
async function pump(res: ServerResponse, chunk: Buffer, total: number): Promise<void> {
  for (let written = 0; written < total && !res.destroyed; written += chunk.length) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("checkImportUrl", () => {
  it("refuses schemes other than http and https", () => {
    for (const url of [
      "ftp://files.example.com/a.csv",
      "file:///etc/passwd",
      "gopher://files.example.com/",
      "data:text/plain,a",
      "ws://files.example.com/",
    ]) {
      const refusal = checkImportUrl(url, []);
      expect(refusal, url).toBeInstanceOf(ImportUrlRefusedError);
      expect(refusal?.reason, url).toBe("scheme");
      expect(refusal?.message, url).toMatch(/scheme .* not allowed/);
    }
    expect(checkImportUrl("http://files.example.com/a.csv", [])).toBeUndefined();
    expect(checkImportUrl("HTTPS://files.example.com/a.csv", [])).toBeUndefined();
  });

  it("refuses credentials in the URL, even for an allowed host", () => {
    for (const url of [
      "http://user@files.example.com/",
      "https://user:secret@files.example.com/",
      "http://:secret@files.example.com/",
    ]) {
      expect(checkImportUrl(url, []), url).toMatchObject({ reason: "credentials" });
    }
    expect(checkImportUrl("http://user:secret@127.0.0.1/", ["127.0.0.1"])).toMatchObject({
      reason: "credentials",
    });
  });

  it("refuses what is not an absolute URL with a host", () => {
    expect(checkImportUrl("not a url", [])).toMatchObject({ reason: "invalid-url" });
    expect(checkImportUrl("/relative/a.csv", [])).toMatchObject({ reason: "invalid-url" });
    expect(checkImportUrl("http://", [])).toBeInstanceOf(ImportUrlRefusedError);
  });

  it("refuses private, loopback, link-local, metadata and reserved IP literals (v4 and v6)", () => {
    const refused: [string, RegExp][] = [
      ["http://127.0.0.1/", /127\.0\.0\.1 is loopback/],
      ["http://127.8.9.10:8080/", /loopback/],
      ["http://10.0.0.1/", /10\.0\.0\.1 is private/],
      ["http://172.16.5.4/", /private/],
      ["http://172.31.255.255/", /private/],
      ["http://192.168.1.1/", /private/],
      ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is a cloud metadata address/],
      ["http://169.254.1.1/", /link-local/],
      ["http://100.64.0.1/", /carrier-grade NAT/],
      ["http://0.0.0.0/", /unspecified/],
      ["http://255.255.255.255/", /broadcast/],
      ["http://224.0.0.1/", /multicast/],
      ["http://240.0.0.1/", /reserved/],
      ["http://192.0.0.8/", /reserved/],
      ["http://192.0.2.1/", /documentation/],
      ["http://198.18.0.1/", /benchmarking/],
      ["http://198.51.100.7/", /documentation/],
      ["http://203.0.113.9/", /documentation/],
      // Other spellings of 127.0.0.1, normalised by the URL parser.
      ["http://2130706433/", /loopback/],
      ["http://0177.0.0.1/", /loopback/],
      ["http://0x7f.1/", /loopback/],
      ["http://[::1]/", /loopback/],
      ["http://[::]/", /unspecified/],
      ["http://[fe80::1]/", /link-local/],
      ["http://[fc00::1]/", /private/],
      ["http://[fd00:ec2::254]/", /private/],
      ["http://[ff02::1]/", /multicast/],
      ["http://[2001:db8::1]/", /documentation/],
      ["http://[::ffff:127.0.0.1]/", /loopback \(IPv4-mapped 127\.0\.0\.1\)/],
      ["http://[::ffff:169.254.169.254]/", /metadata/],
      ["http://[::ffff:a00:1]/", /private \(IPv4-mapped 10\.0\.0\.1\)/],
      ["http://[64:ff9b::10.0.0.1]/", /private \(NAT64 10\.0\.0\.1\)/],
      ["http://[64:ff9b::7f00:1]/", /loopback/],
      ["http://[2002:7f00:1::1]/", /loopback \(6to4 127\.0\.0\.1\)/],
      ["http://[::127.0.0.1]/", /IPv4-compatible/],
    ];
    for (const [url, message] of refused) {
      const refusal = checkImportUrl(url, []);
      expect(refusal, url).toBeInstanceOf(ImportUrlRefusedError);
      expect(refusal?.reason, url).toBe("blocked-address");
      expect(refusal?.message, url).toMatch(message);
    }
  });

  it("refuses localhost, *.localhost and metadata.google.internal by name", () => {
    for (const url of [
      "http://localhost/",
      "http://LOCALHOST./",
      "http://files.localhost:8080/",
      "http://metadata.google.internal/computeMetadata/v1/",
    ]) {
      expect(checkImportUrl(url, []), url).toMatchObject({ reason: "blocked-hostname" });
    }
  });

  it("accepts public IP literals and host names (host names are judged after resolution)", () => {
    for (const url of [
      "http://93.184.216.34/a.csv",
      "https://93.184.216.34:8443/a.csv",
      "http://[2606:2800:220:1:248:1893:25c8:1946]/",
      "http://[::ffff:93.184.216.34]/",
      "http://[64:ff9b::93.184.216.34]/",
      "https://files.example.com/export?id=1",
      "http://172.32.0.1/",
      "http://100.128.0.1/",
    ]) {
      expect(checkImportUrl(url, []), url).toBeUndefined();
    }
  });

  it("exempts hosts in allowHosts from the address and name rules, by host or host:port", () => {
    expect(checkImportUrl("http://127.0.0.1:8080/a.csv", ["127.0.0.1"])).toBeUndefined();
    expect(checkImportUrl("http://127.0.0.1:8080/a.csv", ["127.0.0.1:8080"])).toBeUndefined();
    expect(checkImportUrl("http://127.0.0.1:8081/a.csv", ["127.0.0.1:8080"])).toMatchObject({
      reason: "blocked-address",
    });
    expect(checkImportUrl("http://127.0.0.1/a.csv", ["127.0.0.1:80"])).toBeUndefined();
    expect(checkImportUrl("http://localhost/", [" LocalHost "])).toBeUndefined();
    expect(checkImportUrl("http://[::1]:9000/", ["[::1]"])).toBeUndefined();
    expect(checkImportUrl("http://[::1]:9000/", ["::1"])).toBeUndefined();
    expect(checkImportUrl("http://[::1]:9000/", ["[::1]:9001"])).toMatchObject({ reason: "blocked-address" });
    expect(checkImportUrl("http://127.0.0.2/", ["127.0.0.1"])).toMatchObject({ reason: "blocked-address" });
    // Not for the scheme rule.
    expect(checkImportUrl("ftp://127.0.0.1/", ["127.0.0.1"])).toMatchObject({ reason: "scheme" });
  });
});

describe("openGuardedStream", () => {
  it("streams the body of an allowed host without asking for compression", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv", "content-length": "12" });
      res.end("a;b\nc;d\ne;f\n");
    });
    const result = await openGuardedStream(`${server.base}/file.csv?x=1`, options());
    expect(result.finalUrl).toBe(`${server.base}/file.csv?x=1`);
    expect(result.contentLength).toBe(12);
    expect(await readAll(result.body)).toBe("a;b\nc;d\ne;f\n");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].method).toBe("GET");
    expect(server.requests[0].url).toBe("/file.csv?x=1");
    expect(server.requests[0].headers["accept-encoding"]).toBeUndefined();
  });

  it("hands chunks over as they arrive instead of buffering the file", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.write("first;chunk\n");
      await released;
      res.end("second;chunk\n");
    });
    const { body, contentLength } = await openGuardedStream(`${server.base}/`, options());
    expect(contentLength).toBeUndefined();
    const iterator = body[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(first.value.toString()).toBe("first;chunk\n");
    release();
    let rest = "";
    for (let step = await iterator.next(); !step.done; step = await iterator.next())
      rest += step.value.toString();
    expect(rest).toBe("second;chunk\n");
  });

  it("refuses a loopback literal that is not allowed, without connecting", async () => {
    const server = await startServer((_req, res) => res.end("secret"));
    const error = await rejection(openGuardedStream(`${server.base}/`, options({ allowHosts: [] })));
    expect(error).toBeInstanceOf(ImportUrlRefusedError);
    expect((error as ImportUrlRefusedError).message).toMatch(/127\.0\.0\.1 is loopback/);
    expect(server.sockets).toHaveLength(0);
  });

  it("refuses a host name that resolves to a loopback or private address, without connecting", async () => {
    const server = await startServer((_req, res) => res.end("secret"));
    for (const [host, address, rule] of [
      ["files.test", "127.0.0.1", "loopback"],
      ["intranet.test", "10.0.0.5", "private"],
      ["v6.test", "::1", "loopback"],
      ["mapped.test", "::ffff:127.0.0.1", "loopback"],
      ["meta.test", "169.254.169.254", "a cloud metadata address"],
    ]) {
      const { lookup, calls } = fakeLookup({ [host]: [address] });
      const error = await rejection(
        openGuardedStream(`http://${host}:${server.port}/`, options({ allowHosts: [], lookup })),
      );
      expect(error, host).toBeInstanceOf(ImportUrlRefusedError);
      expect((error as ImportUrlRefusedError).reason).toBe("blocked-address");
      expect((error as Error).message).toContain(`the address ${address} of host ${host} is ${rule}`);
      expect(calls).toEqual([host]);
    }
    expect(server.sockets).toHaveLength(0);
  });

  it("fetches a host name resolving to 127.0.0.1 when the host is in allowHosts", async () => {
    const server = await startServer((_req, res) => res.end("allowed"));
    const { lookup } = fakeLookup({ "files.test": ["127.0.0.1"] });
    for (const allowHosts of [["files.test"], ["FILES.TEST"], [`files.test:${server.port}`]]) {
      const result = await openGuardedStream(
        `http://files.test:${server.port}/a.csv`,
        options({ allowHosts, lookup }),
      );
      expect(await readAll(result.body)).toBe("allowed");
    }
    const otherPort = await rejection(
      openGuardedStream(
        `http://files.test:${server.port}/a.csv`,
        options({ allowHosts: [`files.test:${server.port + 1}`], lookup }),
      ),
    );
    expect(otherPort).toBeInstanceOf(ImportUrlRefusedError);
    expect(server.requests).toHaveLength(3);
  });

  it("refuses a host name when any of its addresses is private, whatever the order", async () => {
    const server = await startServer((_req, res) => res.end("secret"));
    for (const addresses of [
      ["93.184.216.34", "127.0.0.1"],
      ["127.0.0.1", "93.184.216.34"],
      ["2606:2800:220:1:248:1893:25c8:1946", "fe80::1"],
    ]) {
      const { lookup } = fakeLookup({ "mixed.test": addresses });
      const error = await rejection(
        openGuardedStream(
          `http://mixed.test:${server.port}/`,
          options({ allowHosts: [], lookup, timeoutMs: 2_000 }),
        ),
      );
      expect(error, addresses.join()).toBeInstanceOf(ImportUrlRefusedError);
      expect((error as Error).message).toMatch(/of host mixed\.test is (loopback|link-local)/);
    }
    expect(server.sockets).toHaveLength(0);
  });

  it("connects only to the address it checked: one resolution per URL, pinned for the connection (DNS rebinding)", async () => {
    const server = await startServer((req, res) => res.end(`host=${req.headers.host}`));
    const calls: string[] = [];
    // The first answer is the one checked; any later question would get an address nobody listens on.
    const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? "127.0.0.1" : "127.0.0.3", family: 4 }];
    };
    const result = await openGuardedStream(
      `http://files.test:${server.port}/a.csv`,
      options({ allowHosts: ["files.test"], lookup }),
    );
    expect(await readAll(result.body)).toBe(`host=files.test:${server.port}`);
    expect(calls).toEqual(["files.test"]);
    expect(server.sockets).toHaveLength(1);
  });

  it("sends the host name as TLS server name while connecting to the checked address, and verifies the certificate", async () => {
    const serverNames: string[] = [];
    const context = createSecureContext({ key: TEST_KEY, cert: TEST_CERT });
    const tlsServer: TlsServer = createTlsServer({
      key: TEST_KEY,
      cert: TEST_CERT,
      SNICallback: (name, callback) => {
        serverNames.push(name);
        callback(null, context);
      },
    });
    const tlsSockets: Socket[] = [];
    tlsServer.on("connection", (socket: Socket) => tlsSockets.push(socket));
    tlsServer.on("tlsClientError", () => undefined);
    tlsServer.listen(0, "127.0.0.1");
    await once(tlsServer, "listening");
    cleanups.push(async () => {
      for (const socket of tlsSockets) socket.destroy();
      tlsServer.close();
      await once(tlsServer, "close");
    });
    const port = (tlsServer.address() as AddressInfo).port;
    const { lookup } = fakeLookup({ "files.test": ["127.0.0.1"] });
    const error = await rejection(
      openGuardedStream(`https://files.test:${port}/a.csv`, options({ allowHosts: ["files.test"], lookup })),
    );
    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).kind).toBe("network");
    expect((error as Error).message).toMatch(/certificate/i);
    expect(serverNames).toEqual(["files.test"]);
  });

  it("reports resolution failures as FetchFailedError, and refuses answers that are not addresses", async () => {
    const missing = await rejection(
      openGuardedStream("http://nowhere.test/", options({ lookup: fakeLookup({}).lookup })),
    );
    expect(missing).toBeInstanceOf(FetchFailedError);
    expect(missing).toMatchObject({ kind: "dns" });
    expect((missing as Error).message).toMatch(/could not resolve the host nowhere\.test \(ENOTFOUND\)/);
    const empty = await rejection(
      openGuardedStream("http://empty.test/", options({ lookup: fakeLookup({ "empty.test": [] }).lookup })),
    );
    expect(empty).toMatchObject({ kind: "dns" });
    const garbage = await rejection(
      openGuardedStream(
        "http://odd.test/",
        options({ lookup: async () => [{ address: "example.com", family: 4 }] }),
      ),
    );
    expect(garbage).toBeInstanceOf(ImportUrlRefusedError);
    expect(garbage).toMatchObject({ reason: "invalid-address" });
  });

  it("refuses a redirect from an allowed host to a loopback address that is not allowed", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.2:${server.port}/secret` });
      res.end();
    });
    const error = await rejection(openGuardedStream(`${server.base}/start`, options()));
    expect(error).toBeInstanceOf(ImportUrlRefusedError);
    expect((error as Error).message).toBe("the address 127.0.0.2 is loopback (after 1 redirect)");
    expect(server.requests.map((req) => req.url)).toEqual(["/start"]);
  });

  it("re-checks every redirect target: scheme, credentials, host name rules and resolved addresses", async () => {
    const targets: Record<string, string> = {
      "/to-private": "http://intranet.test/x.csv",
      "/to-ftp": "ftp://files.example.com/x.csv",
      "/to-credentials": "http://user:pw@127.0.0.1/x.csv",
      "/to-localhost": "http://localhost/x.csv",
      "/to-metadata": "http://169.254.169.254/latest/meta-data/",
    };
    const server = await startServer((req, res) => {
      res.writeHead(301, { location: targets[req.url ?? ""] ?? "/" });
      res.end();
    });
    const { lookup, calls } = fakeLookup({ "intranet.test": ["10.0.0.5"] });
    const expected: Record<string, string> = {
      "/to-private": "blocked-address",
      "/to-ftp": "scheme",
      "/to-credentials": "credentials",
      "/to-localhost": "blocked-hostname",
      "/to-metadata": "blocked-address",
    };
    for (const [path, reason] of Object.entries(expected)) {
      const error = await rejection(openGuardedStream(`${server.base}${path}`, options({ lookup })));
      expect(error, path).toBeInstanceOf(ImportUrlRefusedError);
      expect((error as ImportUrlRefusedError).reason, path).toBe(reason);
    }
    expect(calls).toEqual(["intranet.test"]);
    expect(server.requests).toHaveLength(5);
  });

  it("follows allowed redirects (relative and absolute, 301/302/303/307/308) and streams the final body", async () => {
    const server = await startServer((req, res) => {
      const hops: Record<string, [number, string]> = {
        "/a": [301, "/b"],
        "/b": [302, "b2?q=1"],
        "/b2?q=1": [303, `http://files.test:${server.port}/c`],
        "/c": [307, `${server.base}/d`],
        "/d": [308, "/final.csv"],
      };
      const hop = hops[req.url ?? ""];
      if (hop) {
        res.writeHead(hop[0], { location: hop[1] });
        res.end("moved");
        return;
      }
      res.end(`final ${req.url} ${req.headers.host}`);
    });
    const { lookup } = fakeLookup({ "files.test": ["127.0.0.1"] });
    const result = await openGuardedStream(
      `${server.base}/a`,
      options({ allowHosts: ["127.0.0.1", "files.test"], lookup }),
    );
    expect(result.finalUrl).toBe(`${server.base}/final.csv`);
    expect(await readAll(result.body)).toBe(`final /final.csv 127.0.0.1:${server.port}`);
    expect(server.requests.map((req) => req.url)).toEqual(["/a", "/b", "/b2?q=1", "/c", "/d", "/final.csv"]);
    expect(server.requests[3].headers.host).toBe(`files.test:${server.port}`);
  });

  it("gives up after maxRedirects redirects", async () => {
    const server = await startServer((req, res) => {
      const n = Number((req.url ?? "/0").slice(1));
      res.writeHead(302, { location: `/${n + 1}` });
      res.end();
    });
    const error = await rejection(openGuardedStream(`${server.base}/0`, options({ maxRedirects: 3 })));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ kind: "redirects" });
    expect((error as Error).message).toMatch(/too many redirects \(more than 3\)/);
    expect(server.requests.map((req) => req.url)).toEqual(["/0", "/1", "/2", "/3"]);

    // The default is 5; exactly 5 redirects are still followed.
    const five = await startServer((req, res) => {
      const n = Number((req.url ?? "/0").slice(1));
      if (n < 5) {
        res.writeHead(302, { location: `/${n + 1}` });
        res.end();
      } else {
        res.end("done");
      }
    });
    expect(await readAll((await openGuardedStream(`${five.base}/0`, options())).body)).toBe("done");
    const six = await rejection(openGuardedStream(`${server.base}/0`, options()));
    expect(six).toMatchObject({ kind: "redirects" });
  });

  it("fails on a non-2xx status, naming it", async () => {
    const server = await startServer((req, res) => {
      if (req.url === "/no-location") {
        res.writeHead(302);
        res.end();
        return;
      }
      res.writeHead(req.url === "/gone" ? 404 : 500);
      res.end("error page");
    });
    const notFound = await rejection(openGuardedStream(`${server.base}/gone`, options()));
    expect(notFound).toBeInstanceOf(FetchFailedError);
    expect(notFound).toMatchObject({ kind: "status", status: 404, message: "the server answered HTTP 404" });
    expect(await rejection(openGuardedStream(`${server.base}/boom`, options()))).toMatchObject({
      status: 500,
    });
    expect(await rejection(openGuardedStream(`${server.base}/no-location`, options()))).toMatchObject({
      kind: "status",
      message: "the server answered HTTP 302 without a Location header",
    });
  });

  it("refuses at once a content-length above maxBytes and closes the connection", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-length": "5000" });
      res.write("x".repeat(100)); // and never the rest
    });
    const error = await rejection(openGuardedStream(`${server.base}/big.csv`, options({ maxBytes: 4999 })));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ kind: "too-large" });
    expect((error as Error).message).toMatch(/larger than the limit of 4999 bytes \(content-length 5000\)/);
    await closedWithin5s(server.sockets[0]);

    const exact = await startServer((_req, res) => {
      res.writeHead(200, { "content-length": "10" });
      res.end("0123456789");
    });
    expect(await readAll((await openGuardedStream(`${exact.base}/`, options({ maxBytes: 10 }))).body)).toBe(
      "0123456789",
    );
  });

  it("stops a chunked body that passes maxBytes mid-stream and closes the connection", async () => {
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      await pump(res, Buffer.alloc(16_384, "y"), 64 * 1024 * 1024);
      res.end();
    });
    const { body, contentLength } = await openGuardedStream(`${server.base}/`, options({ maxBytes: 40_000 }));
    expect(contentLength).toBeUndefined();
    let received = 0;
    let failure: unknown;
    try {
      for await (const chunk of body) received += chunk.length;
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(FetchFailedError);
    expect(failure).toMatchObject({
      kind: "too-large",
      message: "the file is larger than the limit of 40000 bytes",
    });
    expect(received).toBeLessThanOrEqual(40_000);
    await closedWithin5s(server.sockets[0]);
  });

  // The whole download's limit, and the stall limit far below it.
  const limits = [
    {
      limit: "timeoutMs",
      given: { timeoutMs: 300 },
      kind: "timeout",
      message: "the download did not finish within 300 ms",
    },
    {
      limit: "stallMs",
      given: { timeoutMs: 60_000, stallMs: 200 },
      kind: "stall",
      message: "no data arrived for 200 ms",
    },
  ] as const;

  it.each(limits)(
    "gives up a server that accepts and never answers ($limit)",
    async ({ given, kind, message }) => {
      const server = await startServer(() => undefined);
      const error = await rejection(openGuardedStream(`${server.base}/`, options(given)));
      expect(error).toBeInstanceOf(FetchFailedError);
      expect(error).toMatchObject({ kind, message });
      await closedWithin5s(server.sockets[0]);
    },
  );

  it.each(limits)(
    "gives up a body that never finishes, and closes the connection ($limit)",
    async ({ given, kind }) => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/csv" });
        res.write("a;b\n");
      });
      const { body } = await openGuardedStream(`${server.base}/`, options(given));
      const chunks: string[] = [];
      let failure: unknown;
      try {
        for await (const chunk of body) chunks.push(chunk.toString());
      } catch (error) {
        failure = error;
      }
      expect(chunks).toEqual(["a;b\n"]);
      expect(failure).toBeInstanceOf(FetchFailedError);
      expect(failure).toMatchObject({ kind });
      await closedWithin5s(server.sockets[0]);
    },
  );

  it("counts a stall only while waiting for bytes: a consumer slower than stallMs is not a stall", async () => {
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      for (let i = 0; i < 3; i++) {
        res.write(`line ${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      res.end();
    });
    const result = await openGuardedStream(`${server.base}/`, options({ stallMs: 150 }));
    // The caller takes longer than stallMs before it reads, and with every chunk.
    await new Promise((resolve) => setTimeout(resolve, 400));
    let text = "";
    for await (const chunk of result.body) {
      text += chunk.toString();
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(text).toBe("line 0\nline 1\nline 2\n");
  });

  it("answers the file's version: a strong ETag, Last-Modified and Content-Length", async () => {
    const server = await startServer((req, res) => {
      const headers: Record<string, string> =
        req.url === "/strong"
          ? { etag: '"abc"', "last-modified": "Tue, 01 Dec 2026 10:00:00 GMT", "content-length": "2" }
          : req.url === "/weak"
            ? { etag: 'W/"abc"' }
            : {};
      res.writeHead(200, headers);
      res.end("ok");
    });
    const strong = await openGuardedStream(`${server.base}/strong`, options());
    await readAll(strong.body);
    expect(strong.version).toEqual({
      etag: '"abc"',
      lastModified: "Tue, 01 Dec 2026 10:00:00 GMT",
      length: 2,
    });
    const weak = await openGuardedStream(`${server.base}/weak`, options());
    await readAll(weak.body);
    expect(weak.version).toEqual({ etag: undefined, lastModified: undefined, length: undefined });
    expect(sameFileVersion(strong.version, { ...strong.version })).toBe(true);
    expect(sameFileVersion(strong.version, { ...strong.version, etag: '"abd"' })).toBe(false);
    expect(sameFileVersion(strong.version, { ...strong.version, length: 3 })).toBe(false);
    expect(
      sameFileVersion(
        { etag: undefined, lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", length: undefined },
        { etag: undefined, lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", length: undefined },
      ),
    ).toBe(true);
    // Nothing tells two versions apart without a validator: never the same.
    expect(sameFileVersion(weak.version, { ...weak.version })).toBe(false);
  });

  it("times out a resolver that never answers", async () => {
    const error = await rejection(
      openGuardedStream(
        "http://slow.test/",
        options({ timeoutMs: 300, lookup: () => new Promise<ResolvedAddress[]>(() => undefined) }),
      ),
    );
    expect(error).toMatchObject({ kind: "timeout" });
  });

  it("stops on the abort signal, before the start and mid-body", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.write("a;b\n");
    });
    const early = new AbortController();
    early.abort();
    const before = await rejection(openGuardedStream(`${server.base}/`, options({ signal: early.signal })));
    expect(before).toBeInstanceOf(FetchFailedError);
    expect(before).toMatchObject({ kind: "aborted", message: "the download was cancelled" });
    expect(server.sockets).toHaveLength(0);

    const controller = new AbortController();
    const { body } = await openGuardedStream(`${server.base}/`, options({ signal: controller.signal }));
    let failure: unknown;
    try {
      for await (const chunk of body) {
        expect(chunk.toString()).toBe("a;b\n");
        controller.abort();
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(FetchFailedError);
    expect(failure).toMatchObject({ kind: "aborted" });
    await closedWithin5s(server.sockets[0]);
  });

  it("stops on the abort signal while waiting for the answer", async () => {
    const server = await startServer(() => undefined);
    const controller = new AbortController();
    const pending = openGuardedStream(`${server.base}/`, options({ signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await rejection(pending)).toMatchObject({ kind: "aborted" });
    await closedWithin5s(server.sockets[0]);
  });

  it("reports a connection cut before the body is complete", async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("0123456789");
      setTimeout(() => req.socket.destroy(), 20);
    });
    const { body } = await openGuardedStream(`${server.base}/`, options());
    const error = await rejection(readAll(body));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ kind: "network" });
  });

  it("reports a refused connection as a network failure", async () => {
    const server = await startServer(() => undefined);
    const port = server.port;
    await cleanups.pop()?.();
    const error = await rejection(openGuardedStream(`http://127.0.0.1:${port}/`, options()));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ kind: "network" });
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("rejects limits that would disable the guard", async () => {
    for (const bad of [
      { maxBytes: Number.NaN },
      { maxBytes: -1 },
      { timeoutMs: 0 },
      { timeoutMs: Number.POSITIVE_INFINITY },
      { maxRedirects: -1 },
      { stallMs: 0 },
      { stallMs: Number.NaN },
    ]) {
      expect(
        await rejection(openGuardedStream("http://127.0.0.1:9/", options(bad))),
        JSON.stringify(bad),
      ).toBeInstanceOf(TypeError);
    }
  });

  it("closes the connection when the consumer stops reading early", async () => {
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      await pump(res, Buffer.alloc(16_384, "z"), 64 * 1024 * 1024);
      res.end();
    });
    const { body } = await openGuardedStream(`${server.base}/`, options({ maxBytes: 1_000_000_000 }));
    for await (const chunk of body) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await closedWithin5s(server.sockets[0]);
  });
});
