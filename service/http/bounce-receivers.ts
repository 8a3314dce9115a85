// The two ways reports reach the service (operations/mailing/bounces.ts reads and records them):
//
// - An inbound SMTP receiver (the `smtp-server` package) on BOUNCE_SMTP_PORT: the MX of BOUNCE_DOMAIN
//   points at it. It takes mail only for VERP addresses whose mac verifies (any other recipient: 550),
//   at most 10 recipients per message, no AUTH, messages of at most BOUNCE_MAX_BYTES (larger: 552, read
//   no further), at most 20 connections at once and BOUNCE_RATE messages a minute from one address
//   (more: 421 and the connection closes). A message that is no report is accepted and dropped (logged):
//   refusing it would only make another bounce.
// - An HTTP webhook, `POST /bounces` on the service's port, for a provider that forwards reports: the body
//   is the report as a message (message/rfc822), `Authorization: Bearer <BOUNCE_WEBHOOK_TOKEN>` (without
//   the token set the route is 404). 202 with `{"recorded":n}`; 400 for a body that is no DSN or ARF
//   report; 503 while 16 reports wait to be read; 401 for a wrong token; 413 past BOUNCE_MAX_BYTES (Content-Length or chunks: reading stops
//   there); 429 past BOUNCE_RATE a minute from one address.
//
// The rate limit is per remote address (webhook.ts).

import type http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import type { Store } from "../db/database.js";
import {
  type BounceOptions,
  type HandledReport,
  ReportsBusyError,
  handleReport,
  verpMailId,
} from "../operations/mailing/bounces.js";
import { unsubscribeKey } from "../operations/mailing/unsubscribe.js";
import { clientAddress } from "./client-address.js";
import { RateLimiter, readBody, tokenMatches } from "./webhook.js";

export interface ReceiverOptions extends BounceOptions {
  readonly maxBytes: number;
  readonly perMinute: number;
  readonly now: () => number;
  readonly log: (entry: Record<string, unknown>) => void;
}

function logOutcome(
  log: ReceiverOptions["log"],
  source: string,
  handled: HandledReport,
  extra: Record<string, unknown> = {},
): void {
  log({
    event: handled.report ? "bounce.report" : "bounce.not_a_report",
    source,
    recorded: handled.events.map((e) => ({ mail: e.mailId, kind: e.kind, suppressed: e.suppressed })),
    ...extra,
  });
}

/** The inbound SMTP receiver (see the top of this file); listen() it on BOUNCE_SMTP_PORT. */
export function createBounceSmtpServer(store: Store, options: ReceiverOptions): SMTPServer {
  const limiter = new RateLimiter(options.perMinute);
  let key: Buffer | undefined;
  const server = new SMTPServer({
    name: "bounces",
    banner: "bounce receiver",
    size: options.maxBytes,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    hideSTARTTLS: true,
    maxClients: 20,
    socketTimeout: 30_000,
    closeTimeout: 5_000,
    logger: false,
    onMailFrom(_address, session, callback) {
      if (!limiter.take(session.remoteAddress, options.now())) {
        const error = Object.assign(new Error("Too many messages, try again later"), { responseCode: 421 });
        return callback(error);
      }
      callback();
    },
    onRcptTo(address, session, callback) {
      void (async () => {
        key ??= await unsubscribeKey(store.db);
        if (session.envelope.rcptTo.length >= 10)
          return callback(Object.assign(new Error("Too many recipients"), { responseCode: 452 }));
        if (verpMailId(key, address.address) === undefined)
          return callback(Object.assign(new Error("No such recipient"), { responseCode: 550 }));
        callback();
      })().catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.maxBytes) chunks.push(chunk);
      });
      stream.on("end", () => {
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded || size > options.maxBytes)
          return callback(Object.assign(new Error("Message too large"), { responseCode: 552 }));
        void (async () => {
          key ??= await unsubscribeKey(store.db);
          const ids = session.envelope.rcptTo.flatMap((r) => verpMailId(key!, r.address) ?? []);
          const handled = await handleReport(
            store,
            Buffer.concat(chunks),
            ids,
            "smtp",
            options.now(),
            options,
          );
          logOutcome(options.log, "smtp", handled, { from: session.remoteAddress });
          callback();
        })().catch((error: unknown) => {
          if (!(error instanceof ReportsBusyError))
            options.log({ event: "bounce.error", source: "smtp", err: String(error) });
          callback(Object.assign(new Error("Try again later"), { responseCode: 451 }));
        });
      });
    },
  });
  server.on("error", (error) => options.log({ event: "bounce.smtp_error", err: String(error) }));
  return server;
}

/** Listens on port/host; the address it took. */
export async function listenSmtp(server: SMTPServer, port: number, host: string): Promise<AddressInfo> {
  const net = (server as unknown as { server: import("node:net").Server }).server;
  await new Promise<void>((resolve, reject) => {
    net.once("error", reject);
    server.listen(port, host, () => {
      net.off("error", reject);
      resolve();
    });
  });
  return net.address() as AddressInfo;
}

export interface WebhookOptions extends ReceiverOptions {
  /** SHA-256 of BOUNCE_WEBHOOK_TOKEN. */
  readonly tokenHash: Buffer;
}

/** `POST /bounces` (see the top of this file). */
export function bounceWebhook(store: Store, options: WebhookOptions) {
  const limiter = new RateLimiter(options.perMinute);
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const send = (status: number, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...extra });
      res.end(`${body}\n`);
    };
    if (req.method !== "POST") return send(405, '{"error":"POST only"}', { allow: "POST" });
    const source = clientAddress(req);
    if (!limiter.take(source, options.now()))
      return send(429, '{"error":"too many reports"}', { "retry-after": "60", connection: "close" });
    if (!tokenMatches(req, options.tokenHash))
      return send(401, '{"error":"Authorization: Bearer <BOUNCE_WEBHOOK_TOKEN> needed"}', {
        "www-authenticate": 'Bearer realm="bounces"',
        connection: "close",
      });
    const body = await readBody(req, options.maxBytes);
    if (body === undefined)
      return send(413, `{"error":"a report is at most ${options.maxBytes} bytes"}`, { connection: "close" });
    let handled: HandledReport;
    try {
      handled = await handleReport(store, body, [], "webhook", options.now(), options);
    } catch (error) {
      if (error instanceof ReportsBusyError)
        return send(503, '{"error":"busy: try again later"}', { "retry-after": "5" });
      throw error;
    }
    logOutcome(options.log, "webhook", handled);
    if (!handled.report)
      return send(400, '{"error":"the body is no delivery status notification or feedback report"}');
    return send(202, JSON.stringify({ recorded: handled.events.length }));
  };
}
