// Where the outbox delivers a message: a folder of `.eml` files (the default) or an SMTP server
// (SMTP_URL, nodemailer). Both take the stored RFC 5322 text as it is. A failure the outbox must not
// retry (the SMTP server refused this message with a 5xx answer) is a PermanentDeliveryError; any other
// error is retried. Error texts never carry the SMTP password, and the password never goes over a
// connection without TLS unless SMTP_ALLOW_PLAINTEXT_AUTH says so.

import type tls from "node:tls";
import SMTPConnection, {
  type SMTPConnectionOptions,
  type SMTPEnvelope,
} from "nodemailer/lib/smtp-connection";
import MimeNode from "nodemailer/lib/mime-node";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import { type FolderSyncs, TemporarySweep, writeDurably } from "./drop-folder.js";
import { PermanentDeliveryError } from "./errors.js";

/** The part of an outbox row a transport needs. */
export interface OutgoingMail {
  readonly id: number;
  readonly to_address: string;
  readonly message: string;
  /** The envelope sender (a VERP address); default: the message's From. */
  readonly returnPath?: string;
}

export interface MailTransport {
  /** What the log and the admin see: "folder <dir>" or the SMTP URL without its password. */
  readonly description: string;
  /** The longest one send may take; the outbox sends a claimed message only while its lease outlasts this. */
  readonly sendTimeoutMs: number;
  /** Messages send() may have in flight at once (SMTP: the pool's connections); default 1. */
  readonly concurrency?: number;
  /** Delivers one message; resolves once it is on disk or accepted by the server. */
  send(mail: OutgoingMail): Promise<void>;
  /**
   * Delivers a batch at once, when the transport can do better than one send after another (the folder:
   * one folder sync for the batch); resolves with each message's error, undefined once it is durable.
   */
  sendBatch?(mails: readonly OutgoingMail[]): Promise<(Error | undefined)[]>;
  /** Housekeeping the worker runs at each pass (the folder removes temporary files of killed writers). */
  maintain?(now: number): Promise<void>;
  /** Closes pooled connections (after the last send). */
  close(): Promise<void>;
}

/** The owner prefix of the outbox worker's temporary `.eml` names (`<id>.eml.outbox-<uuid>.tmp`). */
export const OUTBOX_OWNER_PREFIX = "outbox-";

export interface FolderOptions {
  /** Age after which a temporary file of another owner counts as left by a killed writer (the lease). */
  readonly staleMs?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
  /** The syncs of a batch (tests hold them); default fdatasync of each file, fsync of the folder. */
  readonly syncs?: FolderSyncs;
}

/**
 * Writes each message as `<dir>/<id>.eml` (0600, the folder 0700), under a temporary name first and then
 * renamed, so a reader never sees half a file and a repeated delivery rewrites the same file. `owner`
 * (`outbox-<uuid>`) names this worker's temporary files; those of killed writers are swept. A batch
 * (sendBatch, what the outbox worker uses) is written as drop-folder.ts writeDurably writes it: each file
 * fdatasync'ed and renamed, then one fsync of the folder, before any of it counts as delivered.
 */
export function folderTransport(dir: string, owner: string, options: FolderOptions = {}): MailTransport {
  const sweep = new TemporarySweep(
    dir,
    { finalName: "\\d+\\.eml", ownerPrefix: OUTBOX_OWNER_PREFIX },
    owner,
    options.staleMs ?? 30_000,
    undefined,
    options.log,
  );
  return {
    description: `folder ${dir}`,
    sendTimeoutMs: 0,
    async send(mail) {
      const [error] = await writeDurably(
        dir,
        [{ name: `${mail.id}.eml`, text: mail.message }],
        owner,
        options.syncs,
      );
      if (error !== undefined) throw error;
    },
    sendBatch: (mails) =>
      writeDurably(
        dir,
        mails.map((mail) => ({ name: `${mail.id}.eml`, text: mail.message })),
        owner,
        options.syncs,
      ),
    maintain: (now) => sweep.maybe(now),
    async close() {},
  };
}

/** SMTP_URL as shown in logs and errors: the password replaced by `***`. Unparsable text shows as `(invalid URL)`. */
function displaySmtpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}

/** The text with every form of the URL's password (as written and decoded) replaced by `***`. */
function withoutSecret(text: string, url: string): string {
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (password === "") return text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // an invalid escape: only the written form can appear
  }
  let result = text;
  for (const secret of [password, decoded]) if (secret !== "") result = result.split(secret).join("***");
  return result;
}

/** The address of the message's From header (the envelope sender), or undefined when it has none. */
export function fromAddress(message: string): string | undefined {
  const head = message.split(/\r?\n\r?\n/, 1)[0] ?? "";
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const from = /^From:[ \t]*(.*)$/im.exec(unfolded)?.[1];
  if (from === undefined) return undefined;
  const angle = /<([^<>]*)>\s*$/.exec(from);
  const address = (angle?.[1] ?? from).trim();
  return address === "" ? undefined : address;
}

export interface SmtpOptions {
  /** Envelope sender when a message has no From header. */
  readonly fallbackFrom: string;
  /** Connection, greeting and socket-inactivity timeout, and the limit on one whole send (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * SMTP_ALLOW_PLAINTEXT_AUTH: log in even when the connection has no TLS (an smtp:// server without
   * STARTTLS). Default false: with a user in the URL, smtp:// must upgrade with STARTTLS before AUTH.
   */
  readonly allowPlaintextAuth?: boolean;
  /** TLS options for the connection (tests: trust a loopback server's own certificate). */
  readonly tls?: tls.ConnectionOptions;
  /** SMTP_POOL_SIZE: connections kept open and reused across messages, each one message at a time (default 4). */
  readonly poolSize?: number;
}

/** Why a send failed, as an Error whose message names no secret; permanent for a 5xx refusal of the message. */
function deliveryError(error: unknown, url: string): Error {
  const e = error as { message?: unknown; code?: unknown; responseCode?: unknown };
  const message = withoutSecret(typeof e?.message === "string" ? e.message : String(error), url);
  const code = typeof e?.code === "string" ? e.code : undefined;
  const responseCode = typeof e?.responseCode === "number" ? e.responseCode : undefined;
  // 5xx to MAIL FROM/RCPT TO/DATA refuses this message; a 5xx to AUTH or the greeting is the server's
  // setup, which an operator can fix, so the message waits and retries.
  const refused =
    responseCode !== undefined &&
    responseCode >= 500 &&
    responseCode < 600 &&
    (code === "EENVELOPE" || code === "EMESSAGE");
  let text = code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
  if (code === "ETLS")
    text = `the SMTP server did not upgrade to TLS (STARTTLS), so the login was not sent (SMTP_ALLOW_PLAINTEXT_AUTH=true allows a login without TLS): ${text}`;
  return refused ? new PermanentDeliveryError(text) : new Error(text);
}

/** Messages one pooled connection sends before it is closed and a new one opened (as nodemailer's pool). */
const MESSAGES_PER_CONNECTION = 1000;

/** The connection-level failures after which a message may go again over a new connection (nodemailer's list). */
const isTransient = (error: unknown): boolean => {
  const e = error as { code?: unknown; responseCode?: unknown };
  return (
    e?.responseCode === 421 || e?.code === "ECONNECTION" || e?.code === "ESOCKET" || e?.code === "ETIMEDOUT"
  );
};

interface Pooled {
  readonly connection: SMTPConnection;
  /** Messages sent over it. */
  sent: number;
  /** Ended, failed or closed: never used again. */
  closed: boolean;
}

/**
 * Up to `size` connections of nodemailer's SMTPConnection, each opened (and logged in) once and reused
 * for one message at a time; a send waits for a free connection. A connection the server ended while idle
 * is dropped; one that failed is closed (after a refusal of the message, which leaves it usable, it is
 * reset with RSET and kept, as nodemailer's pool does).
 */
class SmtpPool {
  private readonly idle: Pooled[] = [];
  private readonly waiting: { resolve: (pooled: Pooled | undefined) => void }[] = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly options: SMTPConnectionOptions,
    private readonly auth: { user: string; pass: string } | undefined,
  ) {}

  /** A connection for one message: an idle one, a new one while fewer than `size` are open, else the next freed. */
  async acquire(): Promise<Pooled> {
    for (;;) {
      if (this.closed) throw new Error("the SMTP transport is closed");
      const idle = this.idle.pop();
      if (idle !== undefined) {
        if (idle.closed) {
          this.open--;
          continue;
        }
        return idle;
      }
      if (this.open < this.size) {
        this.open++;
        try {
          return await this.connect();
        } catch (error) {
          this.open--;
          this.wakeOne(undefined);
          throw error;
        }
      }
      const handed = await new Promise<Pooled | undefined>((resolve) => this.waiting.push({ resolve }));
      if (handed !== undefined) return handed;
    }
  }

  /** Gives a connection back after a message (closed when it failed or has sent its share). */
  release(pooled: Pooled): void {
    if (this.closed || pooled.closed || pooled.sent >= MESSAGES_PER_CONNECTION) {
      this.discard(pooled);
      return;
    }
    if (!this.wakeOne(pooled)) this.idle.push(pooled);
  }

  /** Closes a connection that is not to be used again. */
  discard(pooled: Pooled): void {
    if (!pooled.closed) {
      pooled.closed = true;
      pooled.connection.close();
    }
    this.open--;
    // a waiting send may open a new connection now
    this.wakeOne(undefined);
  }

  private wakeOne(pooled: Pooled | undefined): boolean {
    const next = this.waiting.shift();
    next?.resolve(pooled);
    return next !== undefined;
  }

  private connect(): Promise<Pooled> {
    const connection = new SMTPConnection(this.options);
    const pooled: Pooled = { connection, sent: 0, closed: false };
    return new Promise<Pooled>((resolve, reject) => {
      let settled = false;
      const fail = (error: unknown) => {
        pooled.closed = true;
        if (settled) return;
        settled = true;
        connection.close();
        reject(error);
      };
      // Always listened to: an error of an idle connection (the server's idle timeout) only drops it; the
      // send under way gets the same error from its own callback.
      connection.on("error", fail);
      connection.once("end", () => {
        pooled.closed = true;
        if (!settled)
          fail(Object.assign(new Error("the SMTP server closed the connection"), { code: "ECONNECTION" }));
      });
      connection.connect(() => {
        if (settled) return;
        if (this.auth === undefined || !connection.allowsAuth) {
          settled = true;
          resolve(pooled);
          return;
        }
        connection.login(this.auth, (error) => {
          if (error) return fail(error);
          if (settled) return;
          settled = true;
          resolve(pooled);
        });
      });
    });
  }

  close(): void {
    this.closed = true;
    for (const pooled of this.idle.splice(0)) {
      pooled.closed = true;
      pooled.connection.quit();
    }
    for (const waiter of this.waiting.splice(0)) waiter.resolve(undefined);
  }
}

/** Normalizes envelope addresses (one node reused: setEnvelope is synchronous). */
const envelopeNode = new MimeNode();

/**
 * The envelope as nodemailer's Mailer made it from the same addresses: each parsed, its local part quoted
 * when it must be, its domain lower case and punycoded (IDNA) unless the local part needs SMTPUTF8.
 */
function normalizedEnvelope(from: string, to: string): SMTPEnvelope {
  const envelope = envelopeNode.setEnvelope({ from, to: [to] }).getEnvelope();
  return { from: envelope.from, to: envelope.to };
}

/** One message over a pooled connection; resolves on the server's acceptance (250 to its DATA). */
function sendOver(pooled: Pooled, envelope: SMTPEnvelope, message: string): Promise<void> {
  return new Promise((resolve, reject) =>
    pooled.connection.send(envelope, message, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * Sends through the SMTP server of `url` (smtp:// or smtps://, user and password in the URL, parsed as
 * nodemailer parses it) over a pool of nodemailer's SMTP connections, each message's raw text as stored,
 * with the envelope sender from its From header and the envelope recipient its outbox address. With a
 * user in an smtp:// URL the connection must upgrade with STARTTLS before logging in (requireTLS), unless
 * allowPlaintextAuth.
 *
 * The pool is ours, not nodemailer's: its Mailer and pool compose every message again (a MIME node, a
 * Message-ID, stream pipelines) even for a raw one, about 390 µs of CPU a message against 110 µs for the
 * connection alone (measured on loopback, 2026-11-28). A message is delivered when the server answers 250
 * to its DATA; a message that failed on a reused connection for a connection-level reason (the server had
 * dropped it) goes once more over a new one.
 */
export function smtpTransport(url: string, options: SmtpOptions): MailTransport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const poolSize = options.poolSize ?? 4;
  const parsed = new URL(url);
  const login = parsed.username !== "" || parsed.password !== "";
  const { auth, ...connection } = parseConnectionUrl(url);
  const pool = new SmtpPool(
    poolSize,
    {
      ...connection,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      requireTLS: login && parsed.protocol === "smtp:" && options.allowPlaintextAuth !== true,
      ...(options.tls === undefined ? {} : { tls: { ...(connection.tls ?? {}), ...options.tls } }),
      logger: false,
    } as SMTPConnectionOptions,
    auth,
  );
  /** One attempt over one connection; the connection goes back to the pool (or is closed) either way. */
  const attempt = async (envelope: SMTPEnvelope, message: string): Promise<{ reused: boolean }> => {
    const pooled = await pool.acquire();
    const reused = pooled.sent > 0;
    try {
      await sendOver(pooled, envelope, message);
    } catch (error) {
      const e = error as { code?: unknown; responseCode?: unknown };
      if ((e.code === "EENVELOPE" || e.code === "EMESSAGE") && e.responseCode !== 421 && !pooled.closed) {
        // the server refused this message; the session is reset for the next one
        pooled.connection.reset((resetError) => (resetError ? pool.discard(pooled) : pool.release(pooled)));
      } else pool.discard(pooled);
      throw Object.assign(error as object, { reused });
    }
    pooled.sent++;
    pool.release(pooled);
    return { reused };
  };
  return {
    description: displaySmtpUrl(url),
    sendTimeoutMs: timeoutMs,
    concurrency: poolSize,
    async send(mail) {
      const envelope = normalizedEnvelope(
        mail.returnPath ?? fromAddress(mail.message) ?? options.fallbackFrom,
        mail.to_address,
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`SMTP send timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      const deliver = async () => {
        try {
          await attempt(envelope, mail.message);
        } catch (error) {
          if (!(error as { reused?: boolean }).reused || !isTransient(error)) throw error;
          await attempt(envelope, mail.message);
        }
      };
      try {
        await Promise.race([deliver(), timeout]);
      } catch (error) {
        throw deliveryError(error, url);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      pool.close();
    },
  };
}
