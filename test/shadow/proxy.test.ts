// The shadow proxy against real peers on loopback: a legacy stand-in with planted differences, our server,
// and compared hosts that are slow, dead or answer garbage. The divergences found are exactly the planted
// ones, the caller's answers are the answering host's bytes, nothing waits on the compared host, and what
// the proxy holds stays within its limits.

import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback } from "../fixtures/raw-http.js";
import { samples } from "../fixtures/samples.js";
import {
  callReads,
  deadPort,
  endToEndHeaders,
  PLANTED,
  rawExchange,
  runProxy,
  shadowConfig,
  startGarbageHost,
  startHeldHost,
  startLegacyStandIn,
  until,
  type LegacyStandIn,
  type RunningProxy,
} from "./support.js";

const READS = [
  "GetTriggerClicks",
  "GetTriggerViews",
  "GetTriggerIdForAccount",
  "GetRoiResults",
  "GetNewsletterFilters",
  "GetReportViewsByDateInterval",
  "GetSubscriberMailingLists",
];

let legacy: LegacyStandIn;
let ours: FixtureServer;
const running: RunningProxy[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  legacy = await startLegacyStandIn();
  ours = await startFixtureServer();
});
afterAll(async () => {
  await legacy.close();
  await ours.close();
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.proxy.close();
  for (const close of closers.splice(0)) await close();
});

async function proxy(extra: string, oursUrl = ours.endpointUrl, options = {}): Promise<RunningProxy> {
  const config = shadowConfig(`legacy: ${legacy.endpointUrl}\nours: ${oursUrl}\n${extra}`);
  const r = await runProxy(config, options);
  running.push(r);
  return r;
}

async function metricValue(
  r: RunningProxy,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const counter = Object.values(r.proxy.metrics).find((m) => typeof m === "object" && m.name === name);
  if (!counter || typeof counter !== "object") throw new Error(`no metric ${name}`);
  return counter.sum(labels);
}

const VOLATILE = "operations:\n  GetTriggerIdForAccount:\n    volatile: [ TriggerResult/Created ]\n";

describe("mirror mode against a legacy stand-in with planted differences", () => {
  it("finds exactly the planted divergences over every read on every binding", async () => {
    const r = await proxy(VOLATILE);
    const calls = await callReads(r.baseUrl("/legacy"), READS);
    await r.proxy.drain();
    expect(calls).toBe(28);
    expect(r.comparisons).toHaveLength(28);
    const diverged = r.comparisons
      .filter((c) => c.verdict.outcome !== "matched")
      .map((c) => ({
        operation: c.operation,
        binding: c.binding,
        path: c.verdict.path,
        legacy: c.verdict.legacy,
        ours: c.verdict.ours,
      }))
      .sort((a, b) => `${a.operation} ${a.binding}`.localeCompare(`${b.operation} ${b.binding}`));
    const { roiValue, filtersOnGet } = PLANTED;
    expect(diverged).toEqual([
      { operation: filtersOnGet.operation, binding: "httpGet", path: "status", legacy: "500", ours: "200" },
      ...["httpGet", "httpPost", "soap11", "soap12"].map((binding) => ({
        operation: roiValue.operation,
        binding,
        path: roiValue.path,
        legacy: roiValue.legacy,
        ours: roiValue.ours,
      })),
    ]);
    // The legacy's DataSet schema in .NET's other form and its volatile creation times matched.
    const matched = (op: string) =>
      r.comparisons.filter((c) => c.operation === op && c.verdict.outcome === "matched").length;
    expect(matched("GetSubscriberMailingLists")).toBe(4);
    expect(matched("GetTriggerIdForAccount")).toBe(4);
    expect(await metricValue(r, "shadow_requests_total")).toBe(28);
    expect(await metricValue(r, "shadow_mirrored_total")).toBe(28);
    expect(await metricValue(r, "shadow_matched_total")).toBe(23);
    expect(await metricValue(r, "shadow_diverged_total", { operation: "GetRoiResults" })).toBe(4);
    expect(await metricValue(r, "shadow_diverged_total", { binding: "httpGet" })).toBe(2);
    expect(r.proxy.held()).toEqual({ queued: 0, inFlight: 0, pendingBytes: 0 });
  });

  it("without the volatile rule the changing creation times diverge", async () => {
    const r = await proxy("");
    await callReads(r.baseUrl("/legacy"), ["GetTriggerIdForAccount"]);
    await r.proxy.drain();
    expect(r.comparisons.map((c) => c.verdict.path)).toEqual(Array(4).fill("TriggerResult[1]/Created"));
  });

  it("gives the caller the legacy host's answer byte for byte, headers included", async () => {
    const r = await proxy("");
    const soap = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetRoiResults xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword><strSendQueueId>17</strSendQueueId></GetRoiResults></soap:Body></soap:Envelope>`;
    const requests: [string, string, Record<string, string>, string][] = [
      [
        "GET",
        "/legacy/ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=17",
        {},
        "",
      ],
      [
        "GET",
        "/legacy/ExternalAPIService.asmx/GetNewsletterFilters?strUsername=u&strPassword=p&intNewsletterId=0",
        {},
        "",
      ],
      [
        "POST",
        "/legacy/ExternalAPIService.asmx",
        { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '"http://tempuri.org/GetRoiResults"' },
        soap,
      ],
      [
        "POST",
        "/legacy/ExternalAPIService.asmx",
        { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '"http://tempuri.org/Nope"' },
        soap,
      ],
      ["GET", "/legacy/ExternalAPIService.asmx?WSDL", {}, ""],
      ["GET", "/legacy/nowhere", {}, ""],
    ];
    const origin = new URL(legacy.endpointUrl).origin;
    for (const [method, path, headers, body] of requests) {
      // The same Host both ways (the proxy passes the caller's on): the WSDL writes it into its addresses.
      const direct = await rawExchange(
        `${origin}${path}`,
        method,
        { Host: "legacy.example", ...headers },
        body,
      );
      const through = await rawExchange(
        `${r.proxy.url}${path}`,
        method,
        { Host: "legacy.example", ...headers },
        body,
      );
      expect(through.statusLine, path).toBe(direct.statusLine);
      expect(endToEndHeaders(through), path).toEqual(endToEndHeaders(direct));
      expect(through.body.equals(direct.body), path).toBe(true);
    }
    await r.proxy.drain();
    // The operation calls were compared (the unknown action too: its Body names a read, and both hosts
    // refuse it alike); the WSDL and the other path were not.
    expect(
      r.comparisons
        .map((c) => `${c.operation} ${c.binding} ${c.verdict.outcome} ${c.verdict.path ?? ""}`)
        .sort(),
    ).toEqual([
      "GetNewsletterFilters httpGet diverged status",
      "GetRoiResults httpGet diverged RoiResult[1]/Value",
      "GetRoiResults soap11 diverged RoiResult[1]/Value",
      "GetRoiResults soap11 matched ",
    ]);
  });

  it("keeps a chunked body chunked, even on a GET (no second request smuggled to the host)", async () => {
    const r = await proxy("");
    const before = legacy.received.length;
    const body = "<x>not a request line</x>";
    const path =
      "/legacy/ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=17";
    const raw = `GET ${path} HTTP/1.1\r\nHost: legacy.example\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(r.proxy.url).port), "127.0.0.1");
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.write(raw);
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    await r.proxy.drain();
    // The host read one request with its body, framed as the caller framed it.
    expect(legacy.received.slice(before)).toEqual([{ method: "GET", url: path, bodyBytes: body.length }]);
    expect(r.comparisons.map((c) => c.verdict.path)).toEqual([PLANTED.roiValue.path]);
  });

  it("does not mirror writes unless the config opts them in", async () => {
    const before = ours.calls.filter((c) => c.operation === "InsertSubscriberSid").length;
    const r = await proxy("");
    const client = createClient({
      baseUrl: r.baseUrl("/legacy"),
      username: "u",
      password: "p",
      binding: "soap11",
    });
    expect(await client.InsertSubscriberSid(samples.InsertSubscriberSid.params)).toBe(
      samples.InsertSubscriberSid.result,
    );
    await r.proxy.drain();
    expect(ours.calls.filter((c) => c.operation === "InsertSubscriberSid").length).toBe(before);
    expect(r.comparisons).toEqual([]);
    expect(await metricValue(r, "shadow_requests_total", { operation: "InsertSubscriberSid" })).toBe(1);

    const opted = await proxy("operations:\n  InsertSubscriberSid: { mirror: true }\n");
    const client2 = createClient({
      baseUrl: opted.baseUrl("/legacy"),
      username: "u",
      password: "p",
      binding: "httpPost",
    });
    await client2.InsertSubscriberSid(samples.InsertSubscriberSid.params);
    await opted.proxy.drain();
    expect(ours.calls.filter((c) => c.operation === "InsertSubscriberSid").length).toBe(before + 1);
    expect(opted.comparisons.map((c) => c.verdict.outcome)).toEqual(["matched"]);
  });

  it("does not mirror a SOAP request whose action is a write, whatever its Body names", async () => {
    const r = await proxy("");
    const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetRoiResults xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword><strSendQueueId>1</strSendQueueId></GetRoiResults></soap:Body></soap:Envelope>`;
    await rawExchange(
      `${r.proxy.url}/legacy/ExternalAPIService.asmx`,
      "POST",
      { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '"http://tempuri.org/InsertSubscriberSid"' },
      body,
    );
    await r.proxy.drain();
    expect(r.comparisons).toEqual([]);
    expect(await metricValue(r, "shadow_mirrored_total")).toBe(0);
  });
});

describe("the copy's timing", () => {
  it("sends the copy only once the answering host has answered whole", async () => {
    // The answering host holds the request until released (it forwards to the legacy stand-in then).
    const held = await startHeldHost(new URL(legacy.endpointUrl).origin);
    closers.push(() => held.close());
    const r = await runProxy(
      shadowConfig(`legacy: ${held.origin}/legacy/ExternalAPIService.asmx\nours: ${ours.endpointUrl}\n`),
    );
    running.push(r);
    const before = ours.calls.length;
    const client = createClient({
      baseUrl: r.baseUrl("/legacy"),
      username: "u",
      password: "p",
      binding: "httpGet",
    });
    const call = client.GetRoiResults(samples.GetRoiResults.params);
    await until(() => held.received === 1, "the request to reach the answering host");
    // The caller's request (a GET) is whole at the proxy: a copy sent on reading it would be at the
    // compared host well within this wait. It waits for the answer instead, outside the queue.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ours.calls.length).toBe(before);
    expect(r.proxy.held()).toMatchObject({ queued: 0, inFlight: 0 });
    held.release();
    await call;
    await r.proxy.drain();
    expect(ours.calls.length).toBe(before + 1);
    expect(r.comparisons).toHaveLength(1);
  });
});

describe("cut-over mode", () => {
  it("answers from our server and compares the legacy host", async () => {
    const config = `mode: cutover\n`;
    const r = await proxy(config);
    const client = createClient({ baseUrl: r.proxy.url, username: "u", password: "p", binding: "soap12" });
    const rows = await client.GetRoiResults(samples.GetRoiResults.params);
    expect(rows[0]!.Value).toBe(12.5);
    await r.proxy.drain();
    expect(r.comparisons).toHaveLength(1);
    expect(r.comparisons[0]!.verdict).toMatchObject({
      outcome: "diverged",
      path: PLANTED.roiValue.path,
      legacy: "12.75",
      ours: "12.5",
    });
  });
});

describe("a compared host that is slow, dead or broken", () => {
  it("slow: every caller is answered while the compared host holds every copy", async () => {
    const held = await startHeldHost(ours.baseUrl);
    closers.push(() => held.close());
    const r = await proxy(
      "limits: { queue: 100, concurrency: 64 }\n",
      `${held.origin}/ExternalAPIService.asmx`,
    );
    const calls = await callReads(r.baseUrl("/legacy"), READS);
    await until(() => held.received === calls, "the copies to arrive");
    // Every caller has its answer, and nothing has been compared: the compared host answered nothing yet.
    expect(r.comparisons).toEqual([]);
    held.release();
    await r.proxy.drain();
    expect(r.comparisons).toHaveLength(calls);
  });

  it("slow: the queue holds at most its limit, the rest is dropped and counted", async () => {
    const held = await startHeldHost(ours.baseUrl);
    closers.push(() => held.close());
    const r = await proxy("limits: { queue: 4, concurrency: 2 }\n", `${held.origin}/ExternalAPIService.asmx`);
    const client = createClient({
      baseUrl: r.baseUrl("/legacy"),
      username: "u",
      password: "p",
      binding: "httpGet",
    });
    for (let i = 0; i < 20; i++) await client.GetRoiResults(samples.GetRoiResults.params);
    expect(r.proxy.held()).toMatchObject({ queued: 4, inFlight: 2 });
    expect(
      await metricValue(r, "shadow_dropped_total", { reason: "queue", operation: "GetRoiResults" }),
    ).toBe(14);
    held.release();
    await r.proxy.drain();
    expect(r.comparisons).toHaveLength(6);
    expect(r.proxy.held()).toEqual({ queued: 0, inFlight: 0, pendingBytes: 0 });
  });

  it("silent: copies time out, callers are answered", async () => {
    const held = await startHeldHost(ours.baseUrl);
    closers.push(() => held.close());
    const r = await proxy("limits: { shadowTimeoutMs: 100 }\n", `${held.origin}/ExternalAPIService.asmx`);
    await callReads(r.baseUrl("/legacy"), ["GetRoiResults"]);
    await r.proxy.drain();
    expect(r.comparisons).toEqual([]);
    expect(await metricValue(r, "shadow_compared_host_failures_total", { reason: "timeout" })).toBe(4);
  });

  it("dead: refused copies are counted, callers are answered", async () => {
    const port = await deadPort();
    const r = await proxy("", `http://127.0.0.1:${port}/ExternalAPIService.asmx`);
    const calls = await callReads(r.baseUrl("/legacy"), READS);
    await r.proxy.drain();
    expect(await metricValue(r, "shadow_compared_host_failures_total", { reason: "refused" })).toBe(calls);
    expect(r.comparisons).toEqual([]);
    expect(r.proxy.held()).toEqual({ queued: 0, inFlight: 0, pendingBytes: 0 });
  });

  it("garbage: bytes that are not HTTP are a protocol failure", async () => {
    const garbage = await startGarbageHost();
    closers.push(() => garbage.close());
    const r = await proxy("", `http://127.0.0.1:${garbage.port}/ExternalAPIService.asmx`);
    await callReads(r.baseUrl("/legacy"), ["GetRoiResults", "GetTriggerClicks"]);
    await r.proxy.drain();
    expect(await metricValue(r, "shadow_compared_host_failures_total", { reason: "protocol" })).toBe(8);
  });

  it("garbage: an HTTP answer that is not the service's is a divergence", async () => {
    const junk = await listenOnLoopback((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html><body>It works!");
    });
    closers.push(() => junk.close());
    const r = await proxy("", `${junk.origin}/ExternalAPIService.asmx`);
    await callReads(r.baseUrl("/legacy"), ["GetTriggerClicks"]);
    await r.proxy.drain();
    expect(r.comparisons.map((c) => c.verdict.path)).toEqual(Array(4).fill("content-type"));
  });
});

describe("memory and the answering host", () => {
  it("passes a request larger than compareBytes uncompared, and one past the byte budget", async () => {
    const r = await proxy("limits: { compareBytes: 2048, pendingBytes: 4096 }\n");
    const client = createClient({
      baseUrl: r.baseUrl("/legacy"),
      username: "u",
      password: "p",
      binding: "httpPost",
    });
    const rows = await client.GetRoiResults({ strSendQueueId: "9".repeat(3000) }).catch((e: Error) => e);
    expect(rows).toBeDefined();
    await r.proxy.drain();
    expect(
      await metricValue(r, "shadow_dropped_total", { reason: "large", operation: "GetRoiResults" }),
    ).toBe(1);
    expect(r.comparisons).toEqual([]);
    expect(r.proxy.held().pendingBytes).toBe(0);
  });

  it("lets go of a mirrored exchange whose caller leaves in the middle of the answer", async () => {
    // An answering host that sends half an answer and waits; the compared host answers at once.
    const half = await listenOnLoopback((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "Content-Type": "text/xml; charset=utf-8", "Content-Length": "100000" });
        res.write('<?xml version="1.0"?><ArrayOfRoiResult>');
      });
    });
    closers.push(() => half.close());
    const config = shadowConfig(
      `legacy: ${half.origin}/ExternalAPIService.asmx\nours: ${ours.endpointUrl}\n`,
    );
    const r = await runProxy(config);
    running.push(r);
    const socket = net.connect(Number(new URL(r.proxy.url).port), "127.0.0.1");
    await new Promise<void>((resolve) => {
      socket.once("data", () => resolve());
      socket.write(
        "GET /ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=17 HTTP/1.1\r\nHost: x\r\n\r\n",
      );
    });
    socket.destroy();
    await until(() => ours.calls.length > 0 && r.proxy.held().inFlight === 0, "the copy to be answered");
    await r.proxy.drain();
    await until(() => r.proxy.held().pendingBytes === 0, "the held bytes to be let go", 5_000);
    expect(r.comparisons).toEqual([]);
  });

  it("lets go of a mirrored exchange whose answering host breaks off its answer", async () => {
    const broken = await listenOnLoopback((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "Content-Type": "text/xml; charset=utf-8", "Content-Length": "100000" });
        res.write('<?xml version="1.0"?><ArrayOfRoiResult>', () =>
          setTimeout(() => res.socket?.destroy(), 50),
        );
      });
    });
    closers.push(() => broken.close());
    const config = shadowConfig(
      `legacy: ${broken.origin}/ExternalAPIService.asmx\nours: ${ours.endpointUrl}\n`,
    );
    const r = await runProxy(config);
    running.push(r);
    const answer = await rawExchange(
      `${r.proxy.url}/ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=17`,
      "GET",
      {},
    ).catch((e: Error) => e);
    expect(answer).toBeDefined();
    await until(
      () => r.proxy.held().inFlight === 0 && r.proxy.held().queued === 0,
      "the copy to be answered",
    );
    await r.proxy.drain();
    await until(() => r.proxy.held().pendingBytes === 0, "the held bytes to be let go", 5_000);
    expect(r.comparisons).toEqual([]);
  });

  // An answering host that answers (404) as soon as it has the request line and headers, without reading
  // the body: then it either closes its connection or keeps it and stops reading. The caller, on one
  // keep-alive connection, sends a body far larger than socket buffers and then a second request: the
  // proxy must read the rest of the first body off the caller's connection (or the second request is
  // never reached) and let go of what it collected.
  for (const after of ["closes", "stops reading"] as const) {
    it(`reads the rest of a body the answering host answered early and ${after} on`, async () => {
      const early = net.createServer((socket) => {
        let head = "";
        socket.on("data", (chunk: Buffer) => {
          if (head.includes("\r\n\r\n")) return;
          head += chunk.toString("latin1");
          if (!head.includes("\r\n\r\n")) return;
          const text = "not found";
          socket.write(
            `HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n${after === "closes" ? "Connection: close\r\n" : ""}\r\n${text}`,
            // Closing with the body unread resets the connection: give the proxy time to read the answer
            // first, or its write fails before it has seen one (then the caller gets a 502, checked below).
            () => (after === "closes" ? setTimeout(() => socket.destroy(), 200) : socket.pause()),
          );
        });
        socket.on("error", () => undefined);
      });
      const sockets = new Set<net.Socket>();
      early.on("connection", (s) => sockets.add(s));
      await new Promise<void>((resolve) => early.listen(0, "127.0.0.1", resolve));
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            early.close(() => resolve());
            for (const s of sockets) s.destroy();
          }),
      );
      const port = (early.address() as net.AddressInfo).port;
      const config = shadowConfig(
        `legacy: http://127.0.0.1:${port}/ExternalAPIService.asmx\nours: ${ours.endpointUrl}\n`,
      );
      const r = await runProxy(config);
      running.push(r);
      const caller = net.connect(Number(new URL(r.proxy.url).port), "127.0.0.1");
      caller.on("error", () => undefined);
      let received = "";
      const answers = () => received.split("HTTP/1.1 ").length - 1;
      caller.on("data", (c: Buffer) => {
        received += c.toString("latin1");
      });
      const body = Buffer.alloc(4 * 1024 * 1024, "x");
      caller.write(
        `POST /ExternalAPIService.asmx/GetRoiResults HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      caller.write(body);
      const closed = new Promise<void>((resolve) => caller.on("close", () => resolve()));
      await until(() => answers() === 1 && /not found$|\r\n\r\n.+\r\n$/s.test(received), "the first answer");
      if (received.startsWith("HTTP/1.1 502 ")) {
        // The reset reached the proxy before the answer: a 502 that closes the connection, nothing held.
        expect(after).toBe("closes");
        expect(received).toMatch(/\r\nConnection: close\r\n/);
        await closed;
        await until(() => r.proxy.held().pendingBytes === 0, "the held bytes to be let go", 10_000);
        return;
      }
      expect(received).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
      caller.write(
        "GET /ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=17 HTTP/1.1\r\nHost: x\r\n\r\n",
      );
      // Without the fix the second request waits behind the unread body until the request timeout
      // (primaryTimeoutMs + 10 s = 130 s by default).
      await until(() => answers() === 2, "the second request on the connection to be answered", 20_000);
      caller.destroy();
      await r.proxy.drain();
      await until(() => r.proxy.held().pendingBytes === 0, "the held bytes to be let go", 10_000);
    });
  }

  it("answers 502 when the answering host is down, and counts it", async () => {
    const port = await deadPort();
    const config = shadowConfig(
      `legacy: http://127.0.0.1:${port}/ExternalAPIService.asmx\nours: ${ours.endpointUrl}\n`,
    );
    const r = await runProxy(config);
    running.push(r);
    const answer = await rawExchange(
      `${r.proxy.url}/ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=1`,
      "GET",
      {},
    );
    expect(answer.statusLine).toBe("HTTP/1.1 502 Bad Gateway");
    expect(await metricValue(r, "shadow_primary_errors_total")).toBe(1);
    expect(r.comparisons).toEqual([]);
  });

  it("serves the metrics in Prometheus' text format on their own port", async () => {
    const r = await proxy("metrics: 127.0.0.1:0\n");
    await callReads(r.baseUrl("/legacy"), ["GetRoiResults"]);
    await r.proxy.drain();
    const text = await (await fetch(r.proxy.metricsUrl!)).text();
    expect(text).toContain('shadow_diverged_total{operation="GetRoiResults",binding="soap11"} 1');
    expect(text).toContain('shadow_requests_total{operation="GetRoiResults",binding="httpPost"} 1');
    expect(text).toContain("shadow_queue_length 0");
    expect((await fetch(r.proxy.metricsUrl!.replace("/metrics", "/other"))).status).toBe(404);
  });
});
