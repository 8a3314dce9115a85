// The two sending reports (docs/service-interface.md "Reading operations"): GetReportViewsByDateInterval and
// GetRoiResults. Every query is scoped by the caller's account_id: a sending of another account is
// NotFound (the same answer as a missing one), and no row of another account can join in.

import { ErrorCodes, clientError } from "../../../generated/server.js";
import type {
  GetReportViewsByDateIntervalParams,
  GetRoiResultsParams,
  ReportViewsRow,
  RoiResult,
} from "../../../generated/types.js";
import type { Account } from "../../db/schema.js";
import { formatDecimal, parseDecimal } from "../../common/decimal.js";
import { notFound } from "../../common/errors.js";
import { checkActivated } from "../subscriber/input.js";
import { idFromText } from "../../common/input.js";
import { zonedInstant } from "../../common/zoned-time.js";
import type { Db } from "../../db/database.js";
import { accountSendingId } from "../../tables/sendings.js";
import { clicksByLink, sendingConversions, sendingLinks, sendingViews } from "../../tables/tracking.js";

/** The account's sending named by `strSendQueueId`, or NotFound naming that parameter. */
async function sendingId(db: Db, account: Account, text: string): Promise<number> {
  const id = idFromText(text);
  const found = id === undefined ? undefined : await accountSendingId(db, account.id, id);
  if (found === undefined) throw notFound("sending", "strSendQueueId");
  return found;
}

const INTERVAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/**
 * `yyyy-MM-ddTHH:mm:ss` (shape and date already checked by the generated rules) as a wall-clock time in
 * `timeZone`: the instant (epoch ms) its second starts.
 */
function intervalInstant(text: string, timeZone: string): number {
  const match = INTERVAL.exec(text.trim());
  if (match === null) throw new RangeError(`not a yyyy-MM-ddTHH:mm:ss time: "${text}"`);
  const [, y, mo, d, h, mi, s] = match.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return zonedInstant(timeZone, y, mo, d, h, mi) + s * 1000;
}

const DD_FIELD = /^DD([1-9]\d{0,2})$/i;

/** The DD number `ddField` names (DD1..DD100, any case); InvalidName otherwise, FieldNotActivated past the account's count. */
function demographicField(account: Account, ddField: string): number {
  const match = DD_FIELD.exec(ddField);
  const n = match === null ? 0 : Number(match[1]);
  if (n < 1 || n > 100) {
    throw clientError(ErrorCodes.InvalidName, "ddField must name a demographic field, DD1 to DD100.", {
      parameter: "ddField",
    });
  }
  checkActivated(account, [n], "ddField");
  return n;
}

/**
 * GetReportViewsByDateInterval: one row per view of the account's sending whose time lies in the
 * interval, oldest first (ties by event id). Both bounds are wall-clock times in the account's time zone
 * and both are inclusive to the whole second: `to` 10:00:00 includes a view at 10:00:00.999. Each row
 * carries the subscriber's id, e-mail and name, the view time in UTC (xs:dateTime, `Z`) and the value of
 * the demographic field `ddField` names (null when the subscriber has none, or it is empty).
 */
export async function reportViews(
  db: Db,
  account: Account,
  params: GetReportViewsByDateIntervalParams,
): Promise<ReportViewsRow[]> {
  const field = String(demographicField(account, params.ddField));
  const sending = await sendingId(db, account, params.strSendQueueId);
  const from = intervalInstant(params.datIntervalFrom, account.time_zone);
  const to = intervalInstant(params.datIntervalTo, account.time_zone) + 999;
  const views = await sendingViews(db, account.id, sending, from, to);
  return views.map((view): ReportViewsRow => {
    const fields = view.fields === null ? {} : (JSON.parse(view.fields) as Record<string, unknown>);
    const value = fields[field];
    return {
      SubscriberId: BigInt(view.subscriber_id),
      Email: view.email,
      Name: view.name,
      ViewTime: new Date(Number(view.created_at)).toISOString(),
      FieldValue: typeof value === "string" && value !== "" ? value : null,
    };
  });
}

/**
 * GetRoiResults: per tracked URL of the account's sending, ordered by URL id (URLs without events
 * included): its clicks, its closures (conversions) and the sum of the conversion values, added exactly
 * as decimals and only then turned into the double the wire carries.
 */
export async function roiResults(
  db: Db,
  account: Account,
  params: GetRoiResultsParams,
): Promise<RoiResult[]> {
  const sending = await sendingId(db, account, params.strSendQueueId);
  const links = await sendingLinks(db, account.id, sending);
  const clickCount = await clicksByLink(db, account.id, sending);
  const conversions = await sendingConversions(db, account.id, sending);
  const closures = new Map<number, { count: number; sum: bigint }>();
  for (const row of conversions) {
    if (row.link_id === null) continue;
    const total = closures.get(row.link_id) ?? { count: 0, sum: 0n };
    total.count++;
    total.sum += row.value === null || row.value === "" ? 0n : parseDecimal(row.value);
    closures.set(row.link_id, total);
  }
  return links.map((link): RoiResult => {
    const closed = closures.get(link.id);
    return {
      Url: link.url,
      Clicks: clickCount.get(link.id) ?? 0,
      Closures: closed?.count ?? 0,
      Value: Number(formatDecimal(closed?.sum ?? 0n)),
    };
  });
}
