// `npm run fuzz -- --only console`: the operator's console (/console/) of the real service (its own process,
// SQLite) under hostile input while /healthz is probed: sign-in and action forms past the 16 KiB bound
// (declared and chunked), mutated and random form bodies, wrong content types, bodies that trickle in or
// stop (cut at the 10 s bound), and hostile cookies (random bytes, forged and stolen-looking tokens, a
// thousand cookies, oversized headers). Every answer must be a documented one (never a 5xx), no session
// may come of it, and the service stays quick.

import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
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

const FORM_BYTES = 16 * 1024;
const PROBE_BOUND_MS = 2_000;

const statusOf = (o: HttpOutcome) => (o.kind === "answer" ? String(o.status) : `failed ${o.detail}`);
function tally(outcomes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(", ");
}

/** A sign-in form page's nonce cookie and CSRF field, so a hostile body can reach the credential check. */
async function signInForm(port: number): Promise<{ cookie: string; csrf: string }> {
  const page = await request(port, "/console/sign-in");
  if (page.kind !== "answer") throw new Error(`sign-in page: ${page.detail}`);
  const set = page.headers["set-cookie"]?.[0] ?? "";
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
  return { cookie: set.split(";", 1)[0]!, csrf };
}

/** Sends a request head, then `body` a byte every `everyMs` (or nothing after the first when 0); the outcome. */
function trickle(
  port: number,
  declared: number,
  body: Buffer,
  everyMs: number,
  limitMs: number,
): Promise<string> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (outcome: string) => {
      clearTimeout(timer);
      clearTimeout(limit);
      socket.destroy();
      resolve(outcome);
    };
    const limit = setTimeout(() => done("still open"), limitMs);
    socket.on("connect", () => {
      socket.write(
        `POST /console/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      const step = () => {
        if (sent >= body.length || socket.destroyed) return;
        socket.write(body.subarray(sent, sent + 1));
        sent++;
        if (everyMs > 0) timer = setTimeout(step, everyMs);
      };
      step();
    });
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status !== undefined) done(`${status} after ${Math.round((performance.now() - started) / 1000)} s`);
    });
    socket.on("close", () => done(`closed after ${Math.round((performance.now() - started) / 1000)} s`));
    // The server cutting a peer that is still writing resets the connection: an error, at the cut's time.
    socket.on("error", () => done(`closed after ${Math.round((performance.now() - started) / 1000)} s`));
  });
}

/** POSTs `body` without a length (Transfer-Encoding: chunked), 4 KiB a chunk; the status or how it failed. */
function chunked(port: number, path: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent: false,
        timeout: 10_000,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
      (res) => {
        res.resume();
        resolve(String(res.statusCode));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => resolve(`failed ${error.code ?? error.message}`));
    req.on("timeout", () => req.destroy(new Error("timeout")));
    for (let at = 0; at < body.length; at += 4096) req.write(body.subarray(at, at + 4096));
    req.end();
  });
}

export async function consoleSection(rows: Row[]): Promise<void> {
  const service = await startRealService({
    accounts: [{ username: "operator", password: "operator-password" }],
  });
  const port = service.port;
  try {
    const quiet = await probeDuring(new Promise((resolve) => setTimeout(resolve, 1_000)), () =>
      healthz(port),
    );
    const bound = Math.max(PROBE_BOUND_MS, 10 * quiet.probes.maxMs);

    // Oversized forms: declared and chunked, to the sign-in and to an action (signed out: the size is
    // refused before anything else looks at the form).
    const big = Buffer.alloc(4 * FORM_BYTES, 0x61);
    const oversized: string[] = [];
    for (let i = 0; i < 20; i++) {
      const path = i % 2 === 0 ? "/console/sign-in" : "/console/sign-out";
      oversized.push(
        i % 4 >= 2
          ? await chunked(port, path, big)
          : statusOf(
              await request(port, path, {
                method: "POST",
                headers: { "content-type": "application/x-www-form-urlencoded" },
                body: big,
              }),
            ),
      );
    }
    rows.push({
      attack: "console: form bodies of 4× the 16 KiB bound, declared and chunked",
      requests: oversized.length,
      outcome: tally(oversized),
      measured: `bound ${FORM_BYTES} bytes`,
      target: "413 each (or the connection closed)",
      pass:
        oversized.every((o) => o === "413" || o.startsWith("failed")) && oversized.some((o) => o === "413"),
    });

    // Mutated and random sign-in bodies, with the form's own nonce so they reach the credential check.
    const form = await signInForm(port);
    const bodies = (i: number): { type: string; body: Buffer } => {
      const kinds = [
        () => randomBytes(1 + (i % FORM_BYTES)),
        () => Buffer.from(`_csrf=${form.csrf}&username=${"%zz%".repeat(i % 500)}&password=%E0%80`),
        () => Buffer.from(`_csrf=${form.csrf}&${"a=1&".repeat(3_000)}username=x&password=y`),
        () =>
          Buffer.from(`_csrf=${form.csrf}&username=${"x".repeat(101 + i)}&password=y&next=//evil.example/`),
        () =>
          Buffer.from(
            `_csrf=${form.csrf}&next=${encodeURIComponent("https://evil.example/")}&username=operator&password=wrong-${i}`,
          ),
        () => Buffer.from(`_csrf=${"A".repeat(43)}&username=operator&password=operator-password`),
      ];
      return {
        type: i % 7 === 6 ? "text/plain" : "application/x-www-form-urlencoded",
        body: kinds[i % kinds.length]!(),
      };
    };
    const mutated: string[] = [];
    let sessions = 0;
    let offSite = 0;
    const { probes } = await probeDuring(
      inParallel(300, 6, async (i) => {
        const { type, body } = bodies(i);
        const outcome = await request(port, "/console/sign-in", {
          method: "POST",
          headers: { "content-type": type, cookie: form.cookie },
          body,
          localAddress: `127.0.${60 + (i % 50)}.1`,
        });
        mutated.push(statusOf(outcome));
        if (outcome.kind === "answer") {
          if (String(outcome.headers["set-cookie"] ?? "").includes("eas_console=")) sessions++;
          const location = outcome.headers.location;
          if (location !== undefined && !location.startsWith("/console/")) offSite++;
        }
      }),
      () => healthz(port),
    );
    const documented = new Set(["400", "401", "403", "413", "415", "429", "503"]);
    rows.push({
      attack: "console: mutated, random and forged sign-in bodies (with the form's nonce)",
      requests: mutated.length,
      outcome: tally(mutated),
      measured: `${sessions} sessions made, ${offSite} redirects off the console; ${describeProbes(probes)}`,
      target: `400, 401, 403, 413, 415, 429 or 503 each, no session, no off-site redirect; healthz < ${Math.round(bound)} ms`,
      pass:
        mutated.every((o) => documented.has(o)) &&
        sessions === 0 &&
        offSite === 0 &&
        probes.failed === 0 &&
        probes.maxMs < bound,
    });

    // Hostile cookies on pages, polls and actions.
    const cookies = (i: number): string => {
      const kinds = [
        () => `eas_console=${randomBytes(32).toString("base64url")}`,
        () =>
          `eas_console=${randomBytes(200)
            .toString("latin1")
            .replace(/[\u0000-\u001f\u007f;]/g, "x")}`,
        () => Array.from({ length: 1_000 }, (_, k) => `c${k}=${k}`).join("; "),
        () => `eas_console=${"A".repeat(43)}; eas_console=${"B".repeat(43)}`,
        () => `=; ;;; eas_console; eas_console==; ${"x".repeat(7_000)}`,
        () => `eas_console=${"%".repeat(43)}`,
      ];
      return kinds[i % kinds.length]!();
    };
    const paths = [
      "/console/",
      "/console/subscribers?q=a",
      "/console/imports/1/progress",
      "/console/outbox/1/raw",
    ];
    const cookieOutcomes: string[] = [];
    const { probes: cookieProbes } = await probeDuring(
      inParallel(240, 6, async (i) => {
        const post = i % 5 === 4;
        const outcome = await request(port, post ? "/console/sign-out" : paths[i % paths.length]!, {
          method: post ? "POST" : "GET",
          headers: {
            cookie: cookies(i),
            ...(post ? { "content-type": "application/x-www-form-urlencoded" } : {}),
          },
          ...(post ? { body: "_csrf=x" } : {}),
        });
        cookieOutcomes.push(`${post ? "POST" : "GET"} ${statusOf(outcome)}`);
      }),
      () => healthz(port),
    );
    rows.push({
      attack: "console: hostile cookies (random, forged, 1,000 cookies, duplicates, 7 KB)",
      requests: cookieOutcomes.length,
      outcome: tally(cookieOutcomes),
      measured: describeProbes(cookieProbes),
      target: `GET 303 (pages) or 401 (data); POST 303 (signed out); healthz < ${Math.round(bound)} ms`,
      pass:
        cookieOutcomes.every((o) => ["GET 303", "GET 401", "POST 303"].includes(o)) &&
        cookieProbes.failed === 0 &&
        cookieProbes.maxMs < bound,
    });

    // Slow and stopped bodies: 40 peers announce a form and send a byte a second, or one byte and stop.
    const slow: string[] = [];
    const body = Buffer.from("username=operator&password=operator-password&_csrf=x".padEnd(200, "x"));
    const { probes: slowProbes } = await probeDuring(
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          trickle(port, body.length, body, i % 2 === 0 ? 1_000 : 0, 25_000).then((o) => {
            slow.push(o);
          }),
        ),
      ),
      () => healthz(port),
    );
    const cut = slow.filter((o) => /^(408|closed) after (9|10|11|12) s$/.test(o)).length;
    rows.push({
      attack: "console: 40 sign-in bodies trickling a byte a second or stopping",
      requests: `${slow.length} + ${slowProbes.count} probes`,
      outcome: tally(slow),
      measured: describeProbes(slowProbes),
      target: `each cut (408 or closed) 10 s after its head; healthz < ${Math.round(bound)} ms`,
      pass: cut === slow.length && slowProbes.failed === 0 && slowProbes.maxMs < bound,
    });
  } finally {
    await service.child.stop();
  }
}
