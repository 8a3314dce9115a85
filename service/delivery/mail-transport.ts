// Where the outbox delivers a message: a folder of `.eml` files (the default) or an SMTP server
// (SMTP_URL, nodemailer). Both take the stored RFC 5322 text as it is. A failure the outbox must not
// retry (the SMTP server refused this message with a 5xx answer) is a PermanentDeliveryError; any other
// error is retried. Error texts never carry the SMTP password, and the password never goes over a
// connection without TLS unless SMTP_ALLOW_PLAINTEXT_AUTH says so.

import type tls from "node:tls";
import { createTransport } from "nodemailer";
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

/**
 * Sends through the SMTP server of `url` (smtp:// or smtps://, user and password in the URL) over a
 * pool of connections, each message's raw text as stored, with the envelope sender from its From header
 * and the envelope recipient its outbox address. With a user in an smtp:// URL the connection must
 * upgrade with STARTTLS before logging in (nodemailer's requireTLS), unless allowPlaintextAuth.
 */
export function smtpTransport(url: string, options: SmtpOptions): MailTransport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const poolSize = options.poolSize ?? 4;
  const parsed = new URL(url);
  const login = parsed.username !== "" || parsed.password !== "";
  const transporter = createTransport({
    url,
    pool: true,
    maxConnections: poolSize,
    maxMessages: 1000,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    requireTLS: login && parsed.protocol === "smtp:" && options.allowPlaintextAuth !== true,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    logger: false,
  });
  return {
    description: displaySmtpUrl(url),
    sendTimeoutMs: timeoutMs,
    concurrency: poolSize,
    async send(mail) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`SMTP send timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([
          transporter.sendMail({
            raw: mail.message,
            envelope: {
              from: mail.returnPath ?? fromAddress(mail.message) ?? options.fallbackFrom,
              to: [mail.to_address],
            },
          }),
          timeout,
        ]);
      } catch (error) {
        throw deliveryError(error, url);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      transporter.close();
    },
  };
}
