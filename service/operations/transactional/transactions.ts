// InsertTransaction and InsertTransactionWithSplit: one transactional e-mail of a project (the admin
// CLI's `project`), with the caller's data fields merged into its templates, queued in mail_outbox to go
// out at the send time.
//
// - strId names a project of the calling account; any other id is NotFound (nothing revealed).
// - Merge tags {{Name}}, {{Email}} and {{DD<n>}} (tag names in any case, spaces inside the braces
//   allowed) are replaced in the subject and both bodies in one pass (a value that itself contains a
//   tag stays as written); any other {{word}} becomes empty. Values are written by their context in the
//   HTML part (merge.ts: HTML-escaped, and in a URL attribute never giving it a scheme other than http,
//   https or mailto), raw in the text part, and have line breaks replaced by a space in the subject.
// - strFormat Text, or a project without an HTML body, sends text/plain only; HTML (the default) sends
//   multipart/alternative with both parts.
// - strSendTime is wall-clock time in the account's time zone (gaps and overlaps: zoned-time.ts);
//   omitted or not after now, the mail is due now. The outbox worker delivers it from then on.
// - strIdentifier is an idempotency key: within 24 hours of a transaction of the same project with the
//   same identifier, a call returns that transaction's id and queues nothing (the first call's content
//   counts). The project row is locked (PostgreSQL FOR UPDATE; SQLite writes are serial) before the
//   look-up, so two concurrent identical calls also make one transaction.
// - Data fields are the message's own values, not subscriber data: DD1 to DD100 (DD25 with the split)
//   whatever the account has activated. WithSplit puts a value longer than 500 characters (code points)
//   into 500-character parts in DDn, DDn+1, ...; the generated check refuses a split past DD25
//   (TooManyFields) or onto a field given too. InsertTransaction refuses a value over 500 characters
//   (TooLong naming strDataValues and the field: 500 is what a field holds, limits.ts), as it does a
//   strName over 255 and an strIdentifier over 255.

import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { InsertTransactionParams } from "../../../generated/types.js";
import type { AccountCheck } from "../../tables/accounts.js";
import {
  insertTransactionRow,
  insertTransactionStatement,
  lockedProject,
  transactionByIdentifier,
} from "../../tables/projects.js";
import type { Store, Db } from "../../db/database.js";
import type { Account, Database, Project } from "../../db/schema.js";
import { notFound } from "../../common/errors.js";
import { type MergeValues, mergeHtml, mergeTemplate } from "../../common/merge.js";
import { MAX_IDENTIFIER, MAX_NAME, checkFieldValues, checkLength } from "../../common/limits.js";
import { type MailInput, outboxRow, queueMail } from "../../delivery/mail.js";
import { checkEmail, idFromText } from "../../common/input.js";
import { demographicValues } from "../subscriber/input.js";
import { parseLocalMinute } from "../../common/zoned-time.js";

/** How long an identifier names the same transaction. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Characters (code points) per field of InsertTransactionWithSplit. */
const SPLIT_LENGTH = 500;

export interface TransactionOptions {
  /** InsertTransactionWithSplit: long values go on into the following fields. */
  readonly split: boolean;
  /** The time of the call (epoch ms). */
  readonly now: number;
  /** Message-ID domain. */
  readonly domain: string;
  /** From address when neither the project nor the account sets one. */
  readonly mailFrom: string;
  /** Told after the commit when a mail was queued (wakes the outbox worker). */
  readonly onQueued?: (() => void) | undefined;
}

/** The fields with values longer than SPLIT_LENGTH code points spread over the following fields. */
export function splitFields(fields: ReadonlyMap<number, string>): Map<number, string> {
  const out = new Map<number, string>();
  for (const [n, value] of fields) {
    const chars = Array.from(value);
    if (chars.length <= SPLIT_LENGTH) {
      out.set(n, value);
      continue;
    }
    for (let part = 0; part * SPLIT_LENGTH < chars.length; part++) {
      out.set(n + part, chars.slice(part * SPLIT_LENGTH, (part + 1) * SPLIT_LENGTH).join(""));
    }
  }
  return out;
}

/** The account's project named by strId, locked for the rest of the transaction on PostgreSQL. */
async function projectOf(
  trx: Db,
  engine: Store["engine"],
  account: Pick<Account, "id">,
  idText: string,
): Promise<Project> {
  const id = idFromText(idText);
  const project = id === undefined ? undefined : await lockedProject(trx, engine, account.id, id);
  if (project === undefined) throw notFound("transactional project", "strId");
  return project;
}

/** When the mail is due: strSendTime in the account's zone, or now when omitted or not in the future. */
function sendTime(text: string | undefined, timeZone: string, now: number): number {
  if (text === undefined || text.trim() === "") return now;
  const at = parseLocalMinute(text, timeZone);
  return Math.max(at, now);
}

/** A call's own values, checked: the recipient, the idempotency key and the values merged. */
export interface TransactionCall {
  readonly email: string;
  readonly identifier: string | null;
  readonly values: MergeValues;
}

/**
 * The checks that need no account, in the order the call is answered: InvalidFormat for strEmail, TooLong
 * for strName, strIdentifier and a field's value, the split (InsertTransactionWithSplit).
 */
function transactionCall(params: InsertTransactionParams, split: boolean): TransactionCall {
  const email = checkEmail(params.strEmail, "strEmail");
  checkLength(params.strName, MAX_NAME, "strName");
  checkLength(params.strIdentifier, MAX_IDENTIFIER, "strIdentifier");
  const given = demographicValues(params.strDataFields, params.strDataValues);
  const fields = split ? splitFields(given) : given;
  checkFieldValues(fields, "strDataValues");
  const identifier =
    params.strIdentifier === undefined || params.strIdentifier === "" ? null : params.strIdentifier;
  return { email, identifier, values: { name: params.strName ?? "", email, fields } };
}

/** The account's settings a transactional mail is made with. */
type MailAccount = Pick<Account, "id" | "time_zone" | "from_name" | "from_email">;

/** The mail of a call: the project's templates merged with the call's values. */
function transactionMail(
  account: MailAccount,
  project: Project,
  call: TransactionCall,
  format: InsertTransactionParams["strFormat"],
  mailFrom: string,
): MailInput {
  const { values } = call;
  return {
    accountId: account.id,
    kind: "transactional",
    from: {
      name: project.from_name || account.from_name,
      address: project.from_email || account.from_email || mailFrom,
    },
    to: { name: values.name, address: call.email },
    subject: mergeTemplate(project.subject, values, (v) => v.replace(/[\r\n]+/g, " ")),
    text: mergeTemplate(project.text_body, values, (v) => v),
    html: format === "Text" || project.html_body === "" ? undefined : mergeHtml(project.html_body, values),
  };
}

/** What insertTransaction wrote, and the project it read (for the project cache). */
export interface TransactionOutcome {
  readonly id: number;
  readonly project: Project;
}

/**
 * InsertTransaction (options.split false) or InsertTransactionWithSplit (true) for an authenticated
 * account, as described at the top of this file: returns the transaction id and the project.
 */
export async function insertTransaction(
  store: Store,
  account: MailAccount,
  params: InsertTransactionParams,
  options: TransactionOptions,
): Promise<TransactionOutcome> {
  const call = transactionCall(params, options.split);
  const sendAt = sendTime(params.strSendTime, account.time_zone, options.now);
  const { identifier } = call;
  const outcome = await store.write(async (trx) => {
    const project = await projectOf(trx, store.engine, account, params.strId);
    if (identifier !== null) {
      const earlier = await transactionByIdentifier(
        trx,
        project.id,
        identifier,
        options.now - IDEMPOTENCY_WINDOW_MS,
      );
      if (earlier !== undefined) return { id: earlier, project, queued: false };
    }
    const mail = transactionMail(account, project, call, params.strFormat, options.mailFrom);
    const mailId = await queueMail(trx, mail, options.now, options.domain, sendAt);
    const id = await insertTransactionRow(trx, {
      account_id: account.id,
      project_id: project.id,
      identifier,
      email: call.email,
      send_at: sendAt,
      mail_id: mailId,
      created_at: options.now,
    });
    return { id, project, queued: true };
  });
  if (outcome.queued) options.onQueued?.();
  return { id: outcome.id, project: outcome.project };
}

// ---- PostgreSQL's single statement --------------------------------------------------------------------
//
// The mail is rendered from the project's templates and the account's sender and time zone, so it needs
// them before it is written. On PostgreSQL a call without an identifier whose credentials are cached
// renders from the project and account settings as last read (ProjectCache) and writes in one
// statement, which checks the credentials (matchingAccountSql), that the project is still the account's
// with the same content (a fingerprint of its columns) and that the account's settings used are still
// its own, and inserts the mail and the transaction only then. Otherwise it writes nothing and the call
// takes the general path. A call with an identifier always takes the general path: it locks the project
// row for the idempotency check.

/** Characters of templates ProjectCache keeps at most (the largest projects are read each call). */
const PROJECT_CACHE_CHARS = 4 * 1024 * 1024;
/** Projects ProjectCache keeps at most. */
const PROJECT_CACHE_ENTRIES = 1024;

/** A project's columns the mail is made of, in a fingerprint PostgreSQL computes the same way (projects.ts). */
function fingerprint(project: Project): string {
  const parts = [
    project.subject,
    project.text_body,
    project.html_body,
    project.from_name,
    project.from_email,
  ];
  const hash = createHash("md5");
  for (const part of parts) hash.update(`${Buffer.byteLength(part, "utf8")}:${part}`, "utf8");
  return hash.digest("hex");
}

interface CachedProject {
  readonly account: MailAccount;
  readonly project: Project;
  readonly fingerprint: string;
  readonly chars: number;
}

/**
 * Projects (with the account settings their mail used) as last read by a call of their account, by
 * account and project id; least recently used dropped first, bounded in entries and in template size.
 */
export class ProjectCache {
  private readonly entries = new Map<string, CachedProject>();
  private chars = 0;

  get(accountId: number, projectIdText: string): CachedProject | undefined {
    const key = `${accountId}:${projectIdText}`;
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(account: MailAccount, project: Project): void {
    const chars =
      project.subject.length + project.text_body.length + project.html_body.length + project.from_name.length;
    if (chars > PROJECT_CACHE_CHARS / 4) return;
    this.drop(account.id, String(project.id));
    const { id, time_zone, from_name, from_email } = account;
    const entry = {
      account: { id, time_zone, from_name, from_email },
      project,
      fingerprint: fingerprint(project),
      chars,
    };
    this.entries.set(`${account.id}:${project.id}`, entry);
    this.chars += chars;
    while (this.chars > PROJECT_CACHE_CHARS || this.entries.size > PROJECT_CACHE_ENTRIES) {
      const [oldest, value] = this.entries.entries().next().value as [string, CachedProject];
      this.entries.delete(oldest);
      this.chars -= value.chars;
    }
  }

  drop(accountId: number, projectIdText: string): void {
    const key = `${accountId}:${projectIdText}`;
    const found = this.entries.get(key);
    if (found === undefined) return;
    this.entries.delete(key);
    this.chars -= found.chars;
  }
}

/** What insertTransactionPostgres did: the account it matched (none: stale) and the id when it wrote. */
export interface PostgresTransaction {
  readonly account: Account | undefined;
  readonly id: number | undefined;
}

/**
 * A call without an identifier as one statement (see above); undefined id, having written nothing, when
 * the cached project or settings are no longer the database's or the call's checks refuse it (the general
 * path then answers).
 */
export async function insertTransactionPostgres(
  db: Kysely<Database>,
  check: AccountCheck,
  cached: CachedProject,
  params: InsertTransactionParams,
  options: TransactionOptions,
): Promise<PostgresTransaction | undefined> {
  let call: TransactionCall;
  let sendAt: number;
  try {
    call = transactionCall(params, options.split);
    sendAt = sendTime(params.strSendTime, cached.account.time_zone, options.now);
  } catch {
    return undefined;
  }
  if (call.identifier !== null) return undefined;
  const { account, project } = cached;
  const mail = transactionMail(account, project, call, params.strFormat, options.mailFrom);
  const row = outboxRow(mail, options.now, options.domain, sendAt);
  const found = await insertTransactionStatement(
    db,
    check,
    { account, projectId: project.id, fingerprint: cached.fingerprint },
    row,
    { email: call.email, sendAt, now: options.now },
  );
  const id = found?.id ?? undefined;
  if (id !== undefined) options.onQueued?.();
  return { account: found?.account ?? undefined, id };
}
