// SendNewsletter (docs/service-interface.md "Mailing list, newsletter and sending operations") schedules
// a sending; the SendingWorker (service/workers/sendings.ts) delivers it exactly once per recipient.
//
// - SendNewsletter: strFromEmail is checked like any address; the newsletter, list and (optional) filter
//   must be the account's, else NotFound naming the parameter. The send time is wall-clock time in the
//   account's zone (zoned-time.ts): date and time as given; a date alone is that day at 00:00; a time
//   alone is that time today (in the account's zone); neither is now. A time not after now is now (so a
//   time alone that has passed today sends at once, not tomorrow). The result is the sending's id.

import { ErrorCodes, clientError } from "../../../generated/server.js";
import type { SendNewsletterParams } from "../../../generated/types.js";
import type { Store } from "../../db/database.js";
import type { Account } from "../../db/schema.js";
import { notFound } from "../../common/errors.js";
import { optionalFilterId } from "../../tables/filters.js";
import { MAX_NAME, checkLength } from "../../common/limits.js";
import { checkEmail, idFromText } from "../../common/input.js";
import { listOf } from "../../tables/lists.js";
import { accountNewsletterId } from "../../tables/newsletters.js";
import { insertSending } from "../../tables/sendings.js";
import { zoneOffset, zonedInstant } from "../../common/zoned-time.js";

/** The account's local date today ("yyyy-MM-dd" parts) at `now`. */
function localToday(timeZone: string, now: number): [number, number, number] {
  const local = new Date(now + zoneOffset(timeZone, now));
  return [local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate()];
}

/** When the sending is due (see the top of this file); InvalidValue for a date that does not exist. */
export function sendingTime(
  date: string | undefined,
  time: string | undefined,
  timeZone: string,
  now: number,
): number {
  const d = date?.trim() ?? "";
  const t = time?.trim() ?? "";
  if (d === "" && t === "") return now;
  let ymd: [number, number, number];
  if (d === "") ymd = localToday(timeZone, now);
  else {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
    const parts =
      m === null ? undefined : ([Number(m[1]), Number(m[2]), Number(m[3])] as [number, number, number]);
    const check = parts === undefined ? undefined : new Date(Date.UTC(2000, parts[1] - 1, parts[2]));
    if (
      parts === undefined ||
      check === undefined ||
      check.getUTCMonth() !== parts[1] - 1 ||
      check.getUTCDate() !== parts[2] ||
      (parts[1] === 2 && parts[2] === 29 && !isLeap(parts[0]))
    )
      throw clientError(ErrorCodes.InvalidValue, "strSendDate must be a date that exists, as yyyy-MM-dd.", {
        parameter: "strSendDate",
      });
    ymd = parts;
  }
  let hour = 0;
  let minute = 0;
  if (t !== "") {
    const m = /^(\d{2}):(\d{2})$/.exec(t);
    if (m === null || Number(m[1]) > 23 || Number(m[2]) > 59)
      throw clientError(ErrorCodes.InvalidValue, "strSendTime must be a time of day, as HH:mm.", {
        parameter: "strSendTime",
      });
    hour = Number(m[1]);
    minute = Number(m[2]);
  }
  const at = zonedInstant(timeZone, ymd[0], ymd[1], ymd[2], hour, minute);
  return Math.max(at, now);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** SendNewsletter: records the sending (see the top of this file) and returns its id, the send queue id. */
export async function sendNewsletter(
  store: Store,
  account: Account,
  params: SendNewsletterParams,
  now: number,
): Promise<number> {
  const fromEmail = checkEmail(params.strFromEmail, "strFromEmail");
  checkLength(params.strFromName, MAX_NAME, "strFromName");
  const fromName = (params.strFromName ?? "").replace(/[\r\n]+/g, " ").trim();
  const sendAt = sendingTime(params.strSendDate, params.strSendTime, account.time_zone, now);
  return store.write(async (trx) => {
    const newsletterId = idFromText(params.strNewsletterId);
    const newsletter =
      newsletterId === undefined ? undefined : await accountNewsletterId(trx, account.id, newsletterId);
    if (newsletter === undefined) throw notFound("newsletter", "strNewsletterId");
    const list = await listOf(trx, account, params.strMailingListId, "strMailingListId");
    const filterId = await optionalFilterId(trx, account, params.strFilterId, "strFilterId");
    return insertSending(trx, {
      account_id: account.id,
      newsletter_id: newsletter,
      list_id: list.id,
      filter_id: filterId,
      from_email: fromEmail,
      from_name: fromName,
      send_at: sendAt,
      created_at: now,
    });
  });
}
