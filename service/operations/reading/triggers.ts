// The trigger reports (docs/service-interface.md "Reading operations"): GetTriggerIdForAccount,
// GetTriggerClicks and GetTriggerViews, over the events of the sending a trigger made
// (service/workers/triggers.ts).
//
// - GetTriggerClicks/GetTriggerViews: the trigger must be the account's, else NotFound naming triggerId.
//   fromDate and toDate are xs:dateTime: with a zone (`Z`, `+01:00`) that instant; without one, wall-clock
//   time in the account's time zone (as GetReportViewsByDateInterval and SendNewsletter read times). Both
//   bounds are inclusive; a toDate without fractional seconds includes its whole second (10:00:00 covers
//   10:00:00.999). Events of the trigger's sending in that interval, oldest first; the answer's times are
//   UTC (`…Z`).

import { ErrorCodes, clientError } from "../../../generated/server.js";
import type {
  GetTriggerClicksParams,
  GetTriggerViewsParams,
  TriggerResult,
  TriggerSubscriberClicksResult,
  TriggerSubscriberViewsResult,
} from "../../../generated/types.js";
import type { Account } from "../../db/schema.js";
import { notFound } from "../../common/errors.js";
import { zonedInstant } from "../../common/zoned-time.js";
import type { Db } from "../../db/database.js";
import { type TriggerEvent, triggerEvents } from "../../tables/tracking.js";
import { accountTriggerId, triggersWithLists } from "../../tables/triggers.js";

/** GetTriggerIdForAccount: the account's triggers by id, with their list's id and name. */
export async function getTriggerIdForAccount(db: Db, account: Account): Promise<TriggerResult[]> {
  const rows = await triggersWithLists(db, account.id);
  return rows.map((r) => ({
    Id: r.id,
    Name: r.name,
    Created: new Date(r.created_at).toISOString(),
    MailinglistId: r.list_id,
    MailinglistName: r.list_name,
  }));
}

const DATE_TIME = /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An xs:dateTime as epoch ms; without a zone it is wall-clock time in `timeZone` (default UTC).
 * InvalidValue naming the parameter otherwise.
 */
export function parseDateTime(value: string | Date, parameter: string, timeZone = "UTC"): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime()))
      throw clientError(ErrorCodes.InvalidValue, `${parameter} must be a date and time.`, { parameter });
    return value.getTime();
  }
  const m = DATE_TIME.exec(value.trim());
  const bad = () =>
    clientError(
      ErrorCodes.InvalidValue,
      `${parameter} must be an xs:dateTime such as 2026-01-31T12:00:00Z (no zone: UTC).`,
      { parameter },
    );
  if (m === null) throw bad();
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 24 || minute! > 59 || second! > 59)
    throw bad();
  if (hour === 24 && (minute !== 0 || second !== 0 || ms !== 0)) throw bad();
  const utc = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms);
  const check = new Date(Date.UTC(year!, month! - 1, day!));
  if (check.getUTCDate() !== day) throw bad();
  const zone = m[8];
  if (zone === undefined)
    return zonedInstant(timeZone, year!, month!, day!, hour!, minute!) + second! * 1000 + ms;
  if (zone === "Z") return utc;
  const sign = zone.startsWith("-") ? -1 : 1;
  const offset = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  return utc - sign * offset;
}

/** The events of `kind` of the account's trigger (NotFound naming triggerId otherwise) in the interval. */
async function eventsOf(
  db: Db,
  account: Account,
  kind: "click" | "view",
  params: GetTriggerClicksParams | GetTriggerViewsParams,
): Promise<TriggerEvent[]> {
  const trigger = await accountTriggerId(db, account.id, params.triggerId);
  if (trigger === undefined) throw notFound("trigger", "triggerId");
  const from = parseDateTime(params.fromDate, "fromDate", account.time_zone);
  const whole = typeof params.toDate === "string" && !params.toDate.includes(".");
  const to = parseDateTime(params.toDate, "toDate", account.time_zone) + (whole ? 999 : 0);
  return triggerEvents(db, account.id, trigger, kind, from, to);
}

/** GetTriggerClicks: the clicks in the trigger's mailings in [fromDate, toDate], oldest first. */
export async function getTriggerClicks(
  db: Db,
  account: Account,
  params: GetTriggerClicksParams,
): Promise<TriggerSubscriberClicksResult[]> {
  const events = await eventsOf(db, account, "click", params);
  return events.map((e) => ({
    ...(e.url === null ? {} : { Link: e.url }),
    Email: e.email,
    Name: e.name,
    ClickTime: new Date(e.at).toISOString(),
    NewsletterName: e.newsletter,
    SubscriberId: String(e.subscriberId),
  }));
}

/** GetTriggerViews: the views (open pixel) of the trigger's mailings in [fromDate, toDate], oldest first. */
export async function getTriggerViews(
  db: Db,
  account: Account,
  params: GetTriggerViewsParams,
): Promise<TriggerSubscriberViewsResult[]> {
  const events = await eventsOf(db, account, "view", params);
  return events.map((e) => ({
    Email: e.email,
    Name: e.name,
    ViewTime: new Date(e.at).toISOString(),
    NewsletterName: e.newsletter,
    SubscriberId: String(e.subscriberId),
  }));
}
