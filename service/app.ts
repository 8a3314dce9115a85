// The whole service in one object: the store, the generated SOAP/HTTP endpoint with the reference
// implementation behind it, the extra routes (/confirm/{token}, /u/{token}, /t/…, /healthz, and /metrics
// with METRICS_TOKEN or on the METRICS_PORT listener), the operator's console (/console/), request logs, metrics and the background workers,
// with an orderly shutdown.

import type http from "node:http";
import type { AddressInfo } from "node:net";
import pino, { type Logger } from "pino";
import pinoPretty from "pino-pretty";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { createNodeServer } from "../generated/runtime/server/listen.js";
import { type CallEvent, createHandler } from "../generated/server.js";
import { Authenticator } from "./auth/authenticator.js";
import { ImportWorker } from "./workers/imports.js";
import { smtpTransport } from "./delivery/mail-transport.js";
import { dkimSigner } from "./delivery/dkim.js";
import { OutboxWorker } from "./workers/outbox.js";
import { SmsWorker } from "./workers/sms-outbox.js";
import { bearerMatches, createMetricsServer, sendMetrics } from "./http/metrics.js";
import { TrackingLimiter, handleTrackingRequest } from "./http/tracking.js";
import { TriggerWorker } from "./workers/triggers.js";
import { createService } from "./operations/service.js";
import { bounceWebhook, createBounceSmtpServer, listenSmtp } from "./http/bounce-receivers.js";
import { smsWebhook } from "./http/sms-webhook.js";
import { formatRoute } from "./http/preferences.js";
import { recordVerdict, verpAddress } from "./operations/mailing/bounces.js";
import { unsubscribeAllRoute } from "./http/unsubscribe-all.js";
import { unsubscribeKey } from "./operations/mailing/unsubscribe.js";
import type { Config } from "./config.js";
import { createConsole } from "./console/index.js";
import { openStore, type Store } from "./db/database.js";
import { activeImportCounts } from "./tables/imports.js";
import { probeAccounts } from "./tables/accounts.js";
import { smsStateCounts } from "./tables/sms.js";
import { SendingWorker } from "./workers/sendings.js";
import { unsubscribeRoute } from "./http/unsubscribe.js";
import { createImportQueue } from "./operations/subscriber/import-queue.js";
import { loadLinkKey } from "./operations/mailing/tracking.js";
import { prepareTrackingBatch } from "./operations/mailing/tracking.js";
import { confirmRoute } from "./http/confirm.js";
import { TrustedProxies, setClientAddress } from "./http/client-address.js";

export interface App {
  readonly store: Store;
  readonly server: http.Server | undefined;
  readonly logger: Logger;
  /** Sign-in: credentials, the verified-pair cache and the throttle (tests and stats). */
  readonly auth: Authenticator;
  /** Runs every worker pass that is due now (tests). */
  readonly outbox: OutboxWorker | undefined;
  readonly importWorker: ImportWorker | undefined;
  readonly sms: SmsWorker | undefined;
  readonly sendings: SendingWorker | undefined;
  /** Fires triggers: queues their newsletter for subscribers newly active on the list. */
  readonly triggerWorker: TriggerWorker | undefined;
  /** The port the inbound bounce receiver took (BOUNCE_SMTP_PORT; 0 picks one), once started. */
  readonly bounceSmtpPort: number | undefined;
  /**
   * Listens on config.port/host (api and all roles) and, with METRICS_PORT, on the metrics listener (any
   * role), and starts the workers (worker and all roles).
   */
  start(): Promise<{ url: string | undefined; metricsUrl: string | undefined }>;
  /** Stops taking requests, lets in-flight ones and the current job batches finish, closes the store. */
  close(): Promise<void>;
}

/**
 * What a request's log line says besides the transport's facts: the call's log fields (CallContext.logFields),
 * which the runtime hands to the handler (the account it signed in as: noteAccount) and to onCall (the
 * operation, binding, outcome and request id); a request that is no call leaves them empty.
 */
type RequestRecord = {
  operation?: string;
  binding?: string;
  outcome?: string;
  requestId?: string;
  account?: number;
};

export interface AppOptions {
  /** Where log lines go (default stdout). */
  readonly logDestination?: NodeJS.WritableStream;
  readonly now?: () => number;
}

/** The request path as logged: no query (HTTP GET carries passwords there), no confirmation token. */
function loggedPath(url: string | undefined): string {
  const path = (url ?? "").split("?", 1)[0]!;
  // Tokens are capabilities (confirm, unsubscribe, count a view or a click): the log never holds one.
  const tokenRoute = /^\/(confirm|u|t\/[ocv])\//.exec(path);
  return tokenRoute !== null ? `${tokenRoute[0]}{token}` : path.slice(0, 200);
}

/** Listens on port/host; the URL it is reachable at. */
async function listen(server: http.Server, port: number | undefined, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const destination = options.logDestination ?? process.stdout;
  const pretty =
    config.logFormat === "pretty" ||
    (config.logFormat === "auto" && (destination as { isTTY?: boolean }).isTTY === true);
  const logger = pino(
    { level: config.logLevel, base: undefined },
    pretty
      ? pinoPretty({
          destination,
          colorize: (destination as { isTTY?: boolean }).isTTY === true,
          sync: true,
          translateTime: "SYS:HH:MM:ss.l",
        })
      : destination,
  );
  const store = await openStore(config.databaseUrl, {
    sqliteSync: config.sqliteSync,
    poolSize: config.databasePool,
  });
  const now = options.now ?? Date.now;
  const serveApi = config.role !== "worker";
  const runWorkers = config.role !== "api";

  const registry = new Registry();
  const calls = new Counter({
    name: "eas_requests_total",
    help: "Operation calls by operation, binding and outcome (OK or the error code).",
    labelNames: ["operation", "binding", "outcome"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "eas_request_duration_seconds",
    help: "Time from decoding a call to its answer, by operation and binding.",
    labelNames: ["operation", "binding"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  new Gauge({
    name: "eas_queue_depth",
    help: "Jobs waiting or in progress, by queue and state.",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await activeImportCounts(store.db))
        this.set({ queue: "imports", state: row.state }, row.n);
      const mail = await store.db
        .selectFrom("mail_outbox")
        .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
        .where("state", "in", ["queued", "dead"])
        .groupBy("state")
        .execute();
      for (const row of mail) this.set({ queue: "mail", state: row.state }, Number(row.n));
      const sms = await smsStateCounts(store.db);
      for (const row of sms) this.set({ queue: "sms", state: row.state }, Number(row.n));
    },
  });

  const bounce = config.bounce;
  let linkKey: Buffer | undefined;
  const bounceLog = (e: Record<string, unknown>) => logger.info(e);
  const receiverOptions = { ...bounce, now, log: bounceLog };
  const bounceSmtp =
    runWorkers && bounce.smtpPort !== undefined ? createBounceSmtpServer(store, receiverOptions) : undefined;
  const bounces =
    serveApi && bounce.webhookTokenHash !== undefined
      ? bounceWebhook(store, { ...receiverOptions, tokenHash: bounce.webhookTokenHash })
      : undefined;
  const smsEvents =
    serveApi && config.smsWebhookTokenHash !== undefined
      ? smsWebhook(store, {
          tokenHash: config.smsWebhookTokenHash,
          perMinute: config.smsWebhookRate,
          now,
          log: (e) => logger.info(e),
        })
      : undefined;
  const outbox = runWorkers
    ? new OutboxWorker(store, {
        dir: config.outboxDir,
        ...(config.smtpUrl === undefined
          ? {}
          : {
              transport: smtpTransport(config.smtpUrl, {
                fallbackFrom: config.mailFrom,
                timeoutMs: Math.max(1000, Math.min(30_000, Math.floor(config.jobLeaseMs / 3))),
                allowPlaintextAuth: config.smtpAllowPlaintextAuth,
                poolSize: config.smtpPoolSize,
              }),
            }),
        sign: dkimSigner(config.dkimKeys),
        domainLimits: { concurrency: config.mailDomainConcurrency, perMinute: config.mailDomainRate },
        ...(bounce.domain === undefined
          ? {}
          : {
              returnPath: async (mailId: number) => {
                linkKey ??= await unsubscribeKey(store.db);
                return verpAddress(linkKey, mailId, bounce.domain!);
              },
            }),
        onRefused: async (trx, mail, reason, at) => {
          await recordVerdict(
            trx,
            mail.id,
            {
              kind: "hard",
              status: /\b5\.\d{1,3}\.\d{1,3}\b/.exec(reason)?.[0] ?? "5.0.0",
              diagnostic: reason,
            },
            "send",
            at,
            bounce,
          );
        },
        maxAttempts: config.mailMaxAttempts,
        retryMaxAgeMs: config.mailRetryMaxAgeMs,
        retryMaxIntervalMs: config.mailRetryMaxIntervalMs,
        retentionMs: config.outboxRetentionDays * 24 * 3600_000,
        leaseMs: config.jobLeaseMs,
        now,
        log: (e) => logger.warn(e),
      })
    : undefined;
  const sms = runWorkers
    ? new SmsWorker(store, {
        dir: config.smsOutboxDir,
        url: config.smsUrl,
        leaseMs: config.jobLeaseMs,
        now,
        log: (e) => logger.warn(e),
      })
    : undefined;
  const importWorker = runWorkers
    ? new ImportWorker(store, {
        allowHosts: config.importAllowHosts,
        maxBytes: config.importMaxBytes,
        timeoutMs: config.importTimeoutMs,
        stallMs: config.importStallMs,
        concurrency: config.importConcurrency,
        leaseMs: config.jobLeaseMs,
        log: (e: Record<string, unknown>) => logger.info(e),
      })
    : undefined;
  const sendings = runWorkers
    ? new SendingWorker(store, {
        publicUrl: config.publicUrl,
        domain: new URL(config.publicUrl).hostname || "localhost",
        leaseMs: config.jobLeaseMs,
        now,
        log: (e) => logger.info(e),
        onMailQueued: () => outbox?.wake(),
        tracker: async () => {
          const key = await loadLinkKey(store);
          return (trx, sending, items) => prepareTrackingBatch(trx, sending, items, config.publicUrl, key);
        },
      })
    : undefined;
  const triggerWorker = runWorkers
    ? new TriggerWorker(store, {
        now,
        log: (e) => logger.info(e),
        onRecipientsQueued: () => sendings?.wake(),
      })
    : undefined;
  const trackingLimiter = new TrackingLimiter();
  const importQueue = createImportQueue(store, {
    allowHosts: config.importAllowHosts,
    now,
    log: (e) => logger.warn(e),
  });
  const auth = new Authenticator(store, {
    now,
    concurrency: config.authConcurrency,
    cacheTtlMs: config.authCacheMs,
  });
  const service = createService({
    store,
    auth,
    config: { publicUrl: config.publicUrl, mailFrom: config.mailFrom },
    imports: {
      async enqueue(account, listId, url) {
        const id = await importQueue.enqueue(account, listId, url);
        importWorker?.wake();
        return id;
      },
    },
    now,
    onMailQueued: () => outbox?.wake(),
    onSmsQueued: () => sms?.wake(),
    onSendingQueued: () => sendings?.wake(),
  });

  const onCall = (event: CallEvent): void => {
    const operation = event.operation ?? "unknown";
    calls.inc({ operation, binding: event.binding, outcome: event.outcome });
    latency.observe({ operation, binding: event.binding }, event.durationMs / 1000);
    // The request's record (below), which the handler's context shared: the account is in it already.
    const record = event.logFields as RequestRecord;
    record.operation = operation;
    record.binding = event.binding;
    record.outcome = event.outcome;
    record.requestId = event.requestId;
  };
  const endpoint = createHandler(service, {
    onCall,
    ...(config.publicUrlSet ? { publicUrl: `${config.publicUrl}/ExternalAPIService.asmx` } : {}),
    ...(config.corsOrigins.length > 0 ? { cors: { origins: config.corsOrigins } } : {}),
    log: (entry) =>
      logger.error(
        {
          reqId: entry.requestId,
          operation: entry.operation,
          err: entry.error instanceof Error ? entry.error.message : String(entry.error),
        },
        entry.message,
      ),
  });

  const consoleRoutes = createConsole({
    store,
    auth,
    config: config.console,
    outboxDir: config.outboxDir,
    smsOutboxDir: config.smsOutboxDir,
    now,
    wake: () => {
      sendings?.wake();
      outbox?.wake();
    },
  });

  /** GET /healthz: up or down, nothing more (not the engine, not a version). */
  async function health(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let up = true;
    try {
      await probeAccounts(store.db);
    } catch {
      up = false;
    }
    res.writeHead(up ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : up ? '{"status":"ok"}\n' : '{"status":"unavailable"}\n');
  }

  async function other(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?", 1)[0]!;
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (await consoleRoutes(req, res)) return;
    const unsubscribeAll = /^\/u\/([^/]*)\/all$/.exec(path);
    if (unsubscribeAll !== null) return unsubscribeAllRoute(store, req, res, unsubscribeAll[1]!, now());
    const format = /^\/u\/([^/]*)\/format$/.exec(path);
    if (format !== null) return formatRoute(store, req, res, format[1]!);
    const unsubscribe = /^\/u\/([^/]*)$/.exec(path);
    if (unsubscribe !== null) return unsubscribeRoute(store, req, res, unsubscribe[1]!, now());
    // A token is base64url: anything else (a malformed %-escape included) is simply not one.
    const confirm = /^\/confirm\/([^/]*)$/.exec(path);
    if (confirm !== null) {
      return confirmRoute(store, req, res, confirm[1]!, now(), () => {
        outbox?.wake();
        triggerWorker?.wake();
      });
    }
    if (path === "/bounces" && bounces !== undefined) return bounces(req, res);
    if (path === "/sms/webhook" && smsEvents !== undefined) return smsEvents(req, res);
    if (req.method !== "GET" && req.method !== "HEAD")
      return send(405, "text/plain; charset=utf-8", "Method not allowed.\n");
    if (path === "/healthz") return health(req, res);
    // Only with the bearer token; without METRICS_TOKEN the public port has no /metrics at all.
    if (path === "/metrics" && config.metricsTokenHash !== undefined) {
      if (bearerMatches(req, config.metricsTokenHash)) return sendMetrics(req, res, registry);
      res.writeHead(401, {
        "content-type": "text/plain; charset=utf-8",
        "cache-control": "no-store",
        "www-authenticate": 'Bearer realm="metrics"',
      });
      res.end(req.method === "HEAD" ? undefined : "Metrics need Authorization: Bearer <METRICS_TOKEN>.\n");
      return;
    }
    if (await handleTrackingRequest(store, req, res, now(), trackingLimiter)) return;
    return send(404, "text/plain; charset=utf-8", "Not found. The service is at /ExternalAPIService.asmx.\n");
  }

  const proxies = new TrustedProxies(config.trustedProxies);
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const server = serveApi
    ? createNodeServer((req, res) => {
        const started = performance.now();
        const record: RequestRecord = {};
        // The caller: the peer, or behind TRUSTED_PROXIES the address they forwarded (client-address.ts).
        const ip = proxies.clientOf(req.socket.remoteAddress ?? "", req.headers["x-forwarded-for"]);
        setClientAddress(req, ip);
        inFlight++;
        res.once("close", () => {
          if (--inFlight === 0) idle?.();
          logger.info({
            reqId: record.requestId,
            method: req.method,
            path: loggedPath(req.url),
            status: res.statusCode,
            ip,
            operation: record.operation,
            binding: record.binding,
            account: record.account,
            outcome: record.outcome,
            durationMs: Math.round((performance.now() - started) * 100) / 100,
          });
        });
        endpoint(
          req,
          res,
          () => {
            other(req, res).catch((error: unknown) => {
              logger.error({ err: error instanceof Error ? error.message : String(error) }, "route failed");
              if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
              res.end("Internal error.\n");
            });
          },
          { logFields: record, remoteAddress: ip },
        );
      })
    : undefined;

  let bounceSmtpPort: number | undefined;
  const metricsServer = config.metricsPort === undefined ? undefined : createMetricsServer(registry, health);

  return {
    store,
    server,
    logger,
    auth,
    outbox,
    sms,
    importWorker,
    sendings,
    triggerWorker,
    get bounceSmtpPort() {
      return bounceSmtpPort;
    },
    async start() {
      // Listen first: an instance whose port is taken fails here, before any worker claims a job.
      const metricsUrl =
        metricsServer === undefined
          ? undefined
          : await listen(metricsServer, config.metricsPort, config.metricsHost);
      const url = server === undefined ? undefined : await listen(server, config.port, config.host);
      if (bounceSmtp !== undefined) {
        const address = await listenSmtp(bounceSmtp, bounce.smtpPort!, bounce.smtpHost);
        logger.info({ port: address.port, host: address.address }, "bounce receiver");
        bounceSmtpPort = address.port;
      }
      if (outbox !== undefined) logger.info({ outbox: outbox.destination }, "mail delivery");
      if (runWorkers && !config.mailFromSet)
        logger.warn(
          { mailFrom: config.mailFrom },
          "MAIL_FROM is not set: mail of accounts and lists without a sender address comes from this made-up address",
        );
      outbox?.start();
      sms?.start();
      importWorker?.start();
      sendings?.start();
      triggerWorker?.start();
      return { url, metricsUrl };
    },
    async close() {
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
      if (server !== undefined) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const drained = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
        await Promise.race([Promise.all([drained, closed]), deadline]);
        server.closeAllConnections();
      }
      if (bounceSmtpPort !== undefined)
        await new Promise<void>((resolve) => bounceSmtp?.close(() => resolve()) ?? resolve());
      if (metricsServer?.listening === true) {
        const closed = new Promise<void>((resolve) => metricsServer.close(() => resolve()));
        metricsServer.closeAllConnections();
        await closed;
      }
      await Promise.race([
        Promise.all([
          outbox?.stop(),
          sms?.stop(),
          importWorker?.stop(),
          sendings?.stop(),
          triggerWorker?.stop(),
        ]),
        deadline,
      ]);
      await store.close();
    },
  };
}
