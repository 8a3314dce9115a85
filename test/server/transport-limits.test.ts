// createServer sets the transport time limits: a client that trickles its headers or its body is cut off
// with 408 instead of holding a connection (and a handler slot) forever.

import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../../generated/server.js";
import { sampleImplementation } from "../fixtures/fixture-server.js";

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); })));
});

async function listen(options: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(sampleImplementation([]), options);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Writes `first`, then nothing more; resolves with what the server sent and when it hung up. */
function trickle(port: number, first: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1", () => socket.write(first));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("close", () => resolve({ text, ms: Date.now() - started }));
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error("the server kept the connection open for 5 s"));
    }, 5_000).unref();
  });
}

describe("createServer transport limits", () => {
  it("answers 408 and closes when the headers do not arrive within headersTimeoutMs", async () => {
    const port = await listen({ headersTimeoutMs: 200, requestTimeoutMs: 1_000 });
    const { text, ms } = await trickle(port, "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(2_000);
  });

  it("answers 408 when the body does not arrive within requestTimeoutMs", async () => {
    const port = await listen({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const head =
      "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\n" +
      'SOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: 1000\r\n\r\n<?xml';
    const { text, ms } = await trickle(port, head);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(4_000); // 10x the limit: the machine's speed varies 3x between days
  });

  it("serves normally within the limits", async () => {
    const port = await listen({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    const res = await fetch(`http://127.0.0.1:${port}/ExternalAPIService.asmx/GetTriggerIdForAccount?strUsername=u&strPassword=p`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<ArrayOfTriggerResult");
  });
});

describe("createServer and Expect: 100-continue", () => {
  const head = (length: number) =>
    "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml; charset=utf-8\r\n" +
    `SOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it("refuses an over-limit body with 413 without first inviting it with 100 Continue", async () => {
    const port = await listen({ maxBodyBytes: 1_000 });
    const { text } = await trickle(port, head(5_000));
    expect(text).not.toContain("100 Continue");
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("invites a body within the limit with 100 Continue", async () => {
    const port = await listen({ maxBodyBytes: 1_000, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { text } = await trickle(port, head(500));
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue/);
  });
});
