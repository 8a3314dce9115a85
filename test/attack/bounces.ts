// `npm run fuzz -- --only bounces`: the inbound bounce endpoints of the real service (its own process,
// SQLite, workers running) with hostile input while /healthz is probed. The webhook (POST /bounces, right
// token) gets mutated and hostile reports (random bytes, 2,000 nested multiparts, 5,000 parts, header
// floods, a 200,000-block delivery-status), bodies past BOUNCE_MAX_BYTES declared and chunked, wrong
// tokens, and one address past BOUNCE_RATE; the SMTP receiver gets recipients that are no verified VERP
// address, messages past the size limit, and more connections than it takes. Every answer must be the
// documented one, nothing recorded (no message of ours is named), and the service stays up and quick.
// The SMS gateway's webhook (POST /sms/webhook) gets hostile JSON (deep nesting, huge arrays and strings,
// random bytes, prototype keys), wrong tokens and one address past SMS_WEBHOOK_RATE, the same way.

import { randomBytes } from "node:crypto";
import net from "node:net";
import { createTransport } from "nodemailer";
import {
  type HttpOutcome,
  describeProbes,
  healthz,
  inParallel,
  probeDuring,
  request,
  startRealService,
} from "./real-service.js";
import type { Row } from "./report.js";

const TOKEN = randomBytes(24).toString("hex");
const MAX_BYTES = 65_536;
const RATE = 400;
/** The slowest a /healthz probe may answer during an attack (the machine is shared: wide). */
const PROBE_BOUND_MS = 2_000;

/** A free loopback port (listened on and closed: the service binds it right after). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function report(type: string, body: string): string {
  return `MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=${type}; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b\r\nContent-Type: message/${type}\r\n\r\n${body}\r\n--b--\r\n`;
}

/** Hostile report bodies, each under MAX_BYTES. */
function hostileBodies(): { name: string; body: Buffer }[] {
  const nested = (depth: number) => {
    let open = "";
    let close = "";
    for (let i = 0; i < depth; i++) {
      open += `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n`;
      close = `\r\n--n${i}--${close}`;
    }
    return `MIME-Version: 1.0\r\n${open}Content-Type: text/plain\r\n\r\nx${close}\r\n`;
  };
  const manyParts = `MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="p"\r\n\r\n${"--p\r\nContent-Type: message/delivery-status\r\n\r\nAction: failed\r\n".repeat(1_500)}--p--\r\n`;
  const blocks = report("delivery-status", "Action: failed\r\nStatus: 5.1.1\r\n\r\n".repeat(1_800));
  const headerFlood = `${"X-A: b\r\n".repeat(7_000)}\r\nbody`;
  const folded = report("feedback-report", `Feedback-Type: abuse${"\r\n x".repeat(20_000)}`);
  const ids = report("delivery-status", "Action: failed\r\nStatus: 5.1.1").replace(
    "--b--",
    `--b\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <${"a".repeat(40_000)}>\r\n--b--`,
  );
  return [
    { name: "nested multiparts (2,000 levels)", body: Buffer.from(nested(2_000).slice(0, MAX_BYTES)) },
    { name: "1,500 delivery-status parts", body: Buffer.from(manyParts.slice(0, MAX_BYTES)) },
    { name: "1,800 recipient blocks", body: Buffer.from(blocks.slice(0, MAX_BYTES)) },
    { name: "7,000 header lines", body: Buffer.from(headerFlood.slice(0, MAX_BYTES)) },
    { name: "a field folded 20,000 times", body: Buffer.from(folded.slice(0, MAX_BYTES)) },
    { name: "a 40,000-character Message-ID", body: Buffer.from(ids) },
    { name: "random bytes", body: randomBytes(MAX_BYTES - 1) },
    {
      name: "an ARF report naming no message",
      body: Buffer.from(report("feedback-report", "Feedback-Type: abuse")),
    },
  ];
}

export async function bouncesSection(rows: Row[]): Promise<void> {
  const smtpPort = await freePort();
  const service = await startRealService({
    env: {
      BOUNCE_DOMAIN: "bounces.test",
      BOUNCE_SMTP_PORT: String(smtpPort),
      BOUNCE_WEBHOOK_TOKEN: TOKEN,
      BOUNCE_MAX_BYTES: String(MAX_BYTES),
      BOUNCE_RATE: String(RATE),
      SMS_WEBHOOK_TOKEN: TOKEN,
      SMS_WEBHOOK_RATE: String(RATE),
    },
  });
  try {
    const post = (body: Buffer | string, from: string, token = TOKEN, headers: Record<string, string> = {}) =>
      request(service.port, "/bounces", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "message/rfc822", ...headers },
        body,
        localAddress: from,
        timeoutMs: 30_000,
      });
    const statusOf = (o: HttpOutcome) => (o.kind === "answer" ? String(o.status) : `failed ${o.detail}`);
    const tally = (outcomes: string[]) => {
      const counts = new Map<string, number>();
      for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
      return [...counts].map(([k, n]) => `${n}× ${k}`).join(", ");
    };

    // The probe's time with nothing going on (at least PROBE_BOUND_MS).
    const quiet = await probeDuring(new Promise((resolve) => setTimeout(resolve, 2_000)), () =>
      healthz(service.port),
    );
    const bound = Math.max(PROBE_BOUND_MS, 10 * quiet.probes.maxMs);
    // Hostile reports, each from its own loopback address (under the rate limit), 20 rounds.
    const bodies = hostileBodies();
    const outcomes: string[] = [];
    const { probes } = await probeDuring(
      inParallel(bodies.length * 20, 4, async (i) => {
        const { body } = bodies[i % bodies.length]!;
        outcomes.push(statusOf(await post(body, `127.0.${10 + (i % bodies.length)}.1`)));
      }),
      () => healthz(service.port),
    );
    const wellFormed = outcomes.every((o) => o === "400" || o === "202" || o === "503");
    rows.push({
      attack: "bounces: hostile reports to the webhook",
      requests: outcomes.length,
      outcome: tally(outcomes),
      measured: describeProbes(probes),
      // Parsing needs the token and runs one report at a time on the event loop (linear, ~100 ms per 64 KiB
      // on this loaded machine): the probes are reported, and must all be answered within the 10 s probe
      // timeout and 10× the quiet bound.
      target: `400, 202 or 503 each; every healthz answered, < ${Math.round(10 * bound)} ms`,
      pass: wellFormed && probes.failed === 0 && probes.maxMs < 10 * bound,
      details: bodies.map((b) => b.name),
    });

    // Too large: declared and chunked.
    const big = Buffer.alloc(4 * MAX_BYTES, 0x41);
    const large: string[] = [];
    for (let i = 0; i < 20; i++) {
      large.push(statusOf(await post(big, "127.0.30.1")));
    }
    rows.push({
      attack: "bounces: webhook bodies of 4× BOUNCE_MAX_BYTES",
      requests: large.length,
      outcome: tally(large),
      measured: `limit ${MAX_BYTES} bytes`,
      target: "413 each (or the connection closed)",
      pass: large.every((o) => o === "413" || o.startsWith("failed")) && large.some((o) => o === "413"),
    });

    // Wrong tokens, and one address past the rate.
    const wrong: string[] = [];
    await inParallel(300, 8, async (i) => {
      wrong.push(statusOf(await post("x", `127.0.40.${1 + (i % 200)}`, randomBytes(24).toString("hex"))));
    });
    const flood: string[] = [];
    await inParallel(RATE + 200, 8, async () => {
      flood.push(statusOf(await post("Subject: x\r\n\r\ny", "127.0.50.1")));
    });
    const refused = flood.filter((o) => o === "429").length;
    rows.push({
      attack: "bounces: wrong webhook tokens; one address past BOUNCE_RATE",
      requests: wrong.length + flood.length,
      outcome: `${tally(wrong)}; flood: ${tally(flood)}`,
      measured: `${refused} of ${flood.length} refused (rate ${RATE}/min)`,
      target: "401 each; 429 past the rate (at least 200)",
      pass:
        wrong.every((o) => o === "401") && refused >= 200 && flood.every((o) => o === "400" || o === "429"),
    });

    // The SMTP receiver.
    const smtp = async (to: string, raw: string): Promise<string> => {
      const transport = createTransport({
        host: "127.0.0.1",
        port: smtpPort,
        secure: false,
        ignoreTLS: true,
        connectionTimeout: 10_000,
        socketTimeout: 10_000,
      });
      try {
        await transport.sendMail({ envelope: { from: "x@mx.example", to: [to] }, raw });
        return "250";
      } catch (error) {
        return String((error as { responseCode?: number }).responseCode ?? (error as Error).message);
      } finally {
        transport.close();
      }
    };
    const smtpOutcomes: string[] = [];
    const { probes: smtpProbes } = await probeDuring(
      inParallel(200, 8, async (i) => {
        const to =
          i % 2 === 0
            ? `bounce-${i}-${randomBytes(8).toString("hex")}@bounces.test`
            : `${randomBytes(6).toString("hex")}@bounces.test`;
        smtpOutcomes.push(await smtp(to, report("delivery-status", "Action: failed\r\nStatus: 5.1.1")));
      }),
      () => healthz(service.port),
    );
    rows.push({
      attack: "bounces: SMTP to forged VERP and unknown recipients",
      requests: smtpOutcomes.length,
      outcome: tally(smtpOutcomes),
      measured: describeProbes(smtpProbes),
      target: `550 each, healthz < ${PROBE_BOUND_MS} ms`,
      pass:
        smtpOutcomes.every((o) => o === "550") &&
        smtpProbes.failed === 0 &&
        smtpProbes.maxMs < PROBE_BOUND_MS,
    });

    // More connections than the receiver takes: idle sockets; the 21st and later are turned away.
    const sockets: net.Socket[] = [];
    const greetings: string[] = [];
    for (let i = 0; i < 40; i++) {
      const socket = net.connect(smtpPort, "127.0.0.1");
      sockets.push(socket);
      greetings.push(
        await new Promise<string>((resolve) => {
          socket.once("data", (d: Buffer) => resolve(d.toString("latin1").slice(0, 3)));
          socket.once("error", () => resolve("error"));
          socket.setTimeout(10_000, () => resolve("timeout"));
        }),
      );
    }
    const health = await healthz(service.port);
    for (const socket of sockets) socket.destroy();
    rows.push({
      attack: "bounces: 40 idle SMTP connections (limit 20)",
      requests: sockets.length,
      outcome: tally(greetings),
      measured: `healthz ${statusOf(health)} in ${Math.round(health.ms)} ms`,
      target: "at most 20 greeted 220, the rest 421; service up",
      pass:
        greetings.filter((g) => g === "220").length <= 20 &&
        greetings.filter((g) => g === "421").length >= 20 &&
        health.kind === "answer" &&
        health.status === 200,
    });
    await smsWebhookRows(rows, service.port, bound);
  } finally {
    await service.child.stop();
  }
}

/** Hostile bodies for POST /sms/webhook, each under its 64 KiB limit. */
function hostileSmsBodies(): { name: string; body: Buffer; expect: string }[] {
  const limit = 64 * 1024;
  const stop = (i: number) => ({ type: "inbound", from: `+4670${String(1_000_000 + i)}`, text: "hello" });
  const body = (text: string) => Buffer.from(text.slice(0, limit));
  return [
    { name: "arrays nested 60,000 deep", body: body("[".repeat(60_000)), expect: "400" },
    { name: "objects nested 10,000 deep", body: body('{"a":'.repeat(10_000)), expect: "400" },
    {
      name: "an array of 101 events",
      body: body(JSON.stringify(Array.from({ length: 101 }, (_, i) => stop(i)))),
      expect: "400",
    },
    {
      name: "100 events (the most)",
      body: body(JSON.stringify(Array.from({ length: 100 }, (_, i) => stop(i)))),
      expect: "200",
    },
    {
      name: "a 60 KiB text",
      body: body(JSON.stringify({ ...stop(0), text: "x".repeat(60_000) })),
      expect: "400",
    },
    {
      name: "a 60 KiB number",
      body: body(`{"type":"receipt","id":${"9".repeat(60_000)},"status":"sent"}`),
      expect: "400",
    },
    {
      name: "prototype keys",
      body: body('{"__proto__":{"type":"inbound"},"constructor":{"prototype":{"x":1}}}'),
      expect: "400",
    },
    { name: "random bytes", body: randomBytes(limit - 1), expect: "400" },
    {
      name: "invalid UTF-8 in a text",
      body: Buffer.concat([
        Buffer.from('{"type":"inbound","from":"+46701234567","text":"'),
        Buffer.from([0xff, 0xfe, 0xc0]),
        Buffer.from('"}'),
      ]),
      expect: "200",
    },
    {
      name: "a 60 KiB phone number",
      body: body(JSON.stringify({ ...stop(0), from: "+".repeat(60_000) })),
      expect: "400",
    },
  ];
}

async function smsWebhookRows(rows: Row[], port: number, bound: number): Promise<void> {
  const post = (body: Buffer | string, from: string, token = TOKEN) =>
    request(port, "/sms/webhook", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      localAddress: from,
      timeoutMs: 30_000,
    });
  const statusOf = (o: HttpOutcome) => (o.kind === "answer" ? String(o.status) : `failed ${o.detail}`);
  const bodies = hostileSmsBodies();
  const outcomes: { expect: string; got: string; name: string }[] = [];
  const { probes } = await probeDuring(
    inParallel(bodies.length * 20, 4, async (i) => {
      const { body, expect, name } = bodies[i % bodies.length]!;
      outcomes.push({ expect, name, got: statusOf(await post(body, `127.0.${60 + (i % bodies.length)}.1`)) });
    }),
    () => healthz(port),
  );
  const wrongAnswers = outcomes.filter((o) => o.got !== o.expect);
  rows.push({
    attack: "sms webhook: hostile JSON (nesting, sizes, random bytes, prototype keys)",
    requests: outcomes.length,
    outcome: `${outcomes.length - wrongAnswers.length} answered as documented`,
    measured: describeProbes(probes),
    target: `200 for the good bodies, 400 naming the rule for the rest; every healthz answered, < ${Math.round(10 * bound)} ms`,
    pass: wrongAnswers.length === 0 && probes.failed === 0 && probes.maxMs < 10 * bound,
    details: [...new Set(wrongAnswers.map((o) => `${o.name}: expected ${o.expect}, got ${o.got}`))].slice(
      0,
      10,
    ),
  });

  const wrong: string[] = [];
  await inParallel(300, 8, async (i) => {
    wrong.push(statusOf(await post("{}", `127.0.80.${1 + (i % 200)}`, randomBytes(24).toString("hex"))));
  });
  const flood: string[] = [];
  await inParallel(RATE + 200, 8, async () => {
    flood.push(statusOf(await post('{"type":"inbound","from":"+46701234567","text":"hi"}', "127.0.90.1")));
  });
  const refused = flood.filter((o) => o === "429").length;
  rows.push({
    attack: "sms webhook: wrong tokens; one address past SMS_WEBHOOK_RATE",
    requests: wrong.length + flood.length,
    outcome: `${wrong.filter((o) => o === "401").length}/${wrong.length} 401; flood ${refused} 429`,
    measured: `${refused} of ${flood.length} refused (rate ${RATE}/min)`,
    target: "401 each; 429 past the rate (at least 200), 200 before",
    pass: wrong.every((o) => o === "401") && refused >= 200 && flood.every((o) => o === "200" || o === "429"),
  });
}
