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

import type { InsertTransactionParams } from "../../../generated/types.js";
import type { Store, Db } from "../../db/database.js";
import type { Account, Project } from "../../db/schema.js";
import { notFound } from "../../common/errors.js";
import { type MergeValues, mergeHtml, mergeTemplate } from "../../common/merge.js";
import { MAX_IDENTIFIER, MAX_NAME, checkFieldValues, checkLength } from "../../common/limits.js";
import { queueMail } from "../../delivery/mail.js";
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
  const project =
    id === undefined
      ? undefined
      : await trx
          .selectFrom("projects")
          .selectAll()
          .where("id", "=", id)
          .where("account_id", "=", account.id)
          .$if(engine === "postgres", (q) => q.forUpdate())
          .executeTakeFirst();
  if (project === undefined) throw notFound("transactional project", "strId");
  return project;
}

/** When the mail is due: strSendTime in the account's zone, or now when omitted or not in the future. */
function sendTime(text: string | undefined, timeZone: string, now: number): number {
  if (text === undefined || text.trim() === "") return now;
  const at = parseLocalMinute(text, timeZone);
  return Math.max(at, now);
}

/**
 * InsertTransaction (options.split false) or InsertTransactionWithSplit (true) for an authenticated
 * account, as described at the top of this file: returns the transaction id.
 */
export async function insertTransaction(
  store: Store,
  account: Pick<Account, "id" | "time_zone" | "from_name" | "from_email">,
  params: InsertTransactionParams,
  options: TransactionOptions,
): Promise<number> {
  const email = checkEmail(params.strEmail, "strEmail");
  checkLength(params.strName, MAX_NAME, "strName");
  checkLength(params.strIdentifier, MAX_IDENTIFIER, "strIdentifier");
  const given = demographicValues(params.strDataFields, params.strDataValues);
  const fields = options.split ? splitFields(given) : given;
  checkFieldValues(fields, "strDataValues");
  const sendAt = sendTime(params.strSendTime, account.time_zone, options.now);
  const identifier =
    params.strIdentifier === undefined || params.strIdentifier === "" ? null : params.strIdentifier;
  const values: MergeValues = { name: params.strName ?? "", email, fields };
  const outcome = await store.write(async (trx) => {
    const project = await projectOf(trx, store.engine, account, params.strId);
    if (identifier !== null) {
      const earlier = await trx
        .selectFrom("transactions")
        .select("id")
        .where("project_id", "=", project.id)
        .where("identifier", "=", identifier)
        .where("created_at", ">", options.now - IDEMPOTENCY_WINDOW_MS)
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (earlier !== undefined) return { id: earlier.id, queued: false };
    }
    const html =
      params.strFormat === "Text" || project.html_body === ""
        ? undefined
        : mergeHtml(project.html_body, values);
    const mailId = await queueMail(
      trx,
      {
        accountId: account.id,
        kind: "transactional",
        from: {
          name: project.from_name || account.from_name,
          address: project.from_email || account.from_email || options.mailFrom,
        },
        to: { name: values.name, address: email },
        subject: mergeTemplate(project.subject, values, (v) => v.replace(/[\r\n]+/g, " ")),
        text: mergeTemplate(project.text_body, values, (v) => v),
        html,
      },
      options.now,
      options.domain,
      sendAt,
    );
    const row = await trx
      .insertInto("transactions")
      .values({
        account_id: account.id,
        project_id: project.id,
        identifier,
        email,
        send_at: sendAt,
        mail_id: mailId,
        created_at: options.now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { id: row.id, queued: true };
  });
  if (outcome.queued) options.onQueued?.();
  return outcome.id;
}
