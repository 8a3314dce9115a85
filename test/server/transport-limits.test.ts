// createServer sets the transport time limits: a client that trickles its headers or its body is cut off
// with 408 instead of holding a connection (and a handler slot) forever.

import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../../generated/server.js";
import { sampleImplementation } from "../fixtures/fixture-server.js";

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function listen(
  options: Parameters<typeof createServer>[1],
): Promise<{ port: number; server: ReturnType<typeof createServer> }> {
  const server = createServer(sampleImplementation([]), options);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/**
 * How long trickle waits for the server to hang up. Far past the limits the tests set (200-600 ms, so a
 * machine 3x slower still answers 15x inside it) and well short of the defaults (20 s for the headers,
 * 300 s for the body): a server that ignored the configured limit is caught here, with no bound on
 * how fast the machine answers.
 */
const HANG_UP_WITHIN_MS = 10_000;

/** Writes `first`, then nothing more; resolves with what the server sent once it hung up. */
function trickle(port: number, first: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(first));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${HANG_UP_WITHIN_MS} ms`));
    }, HANG_UP_WITHIN_MS).unref();
  });
}

describe("createServer transport limits", () => {
  it("answers 408 and closes when the headers do not arrive within headersTimeoutMs", async () => {
    const { port, server } = await listen({ headersTimeoutMs: 200, requestTimeoutMs: 1_000 });
    expect(server.headersTimeout).toBe(200);
    const text = await trickle(port, "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("answers 408 when the body does not arrive within requestTimeoutMs", async () => {
    const { port, server } = await listen({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    expect(server.requestTimeout).toBe(400);
    const head =
      "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\n" +
      'SOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: 1000\r\n\r\n<?xml';
    const text = await trickle(port, head);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("serves normally within the limits", async () => {
    const { port } = await listen({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    const res = await fetch(
      `http://127.0.0.1:${port}/ExternalAPIService.asmx/GetTriggerIdForAccount?strUsername=u&strPassword=p`,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<ArrayOfTriggerResult");
  });
});

describe("createServer and Expect: 100-continue", () => {
  const head = (length: number) =>
    "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\n" +
    `SOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it("refuses an over-limit body with 413 without first inviting it with 100 Continue", async () => {
    const { port } = await listen({ maxBodyBytes: 1_000 });
    const text = await trickle(port, head(5_000));
    expect(text).not.toContain("100 Continue");
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("invites a body within the limit with 100 Continue", async () => {
    const { port } = await listen({ maxBodyBytes: 1_000, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const text = await trickle(port, head(500));
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue/);
  });
});
