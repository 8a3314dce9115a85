// `GET|HEAD|POST /confirm/{token}`: the double opt-in link of a pending single insert
// (operations/subscriber/confirmations.ts).

import type http from "node:http";
import type { Store } from "../db/database.js";
import {
  BODY_TOO_LARGE_PAGE,
  METHOD_NOT_ALLOWED_PAGE,
  buttonPage,
  discardBody,
  page,
  requesterOf,
  sendPage,
} from "./pages.js";
import { confirmSubscription, confirmationPending } from "../operations/subscriber/confirmations.js";

const CONFIRM_TEXT = "Press the button to confirm that you want to receive this mailing list.";
const CONFIRM_FORM = buttonPage("Confirm your subscription", CONFIRM_TEXT, "Confirm subscription");
/** What the consent record keeps of the page the person confirmed on. */
const CONFIRM_SHOWN = `Confirm your subscription. ${CONFIRM_TEXT} [Confirm subscription]`;
const CONFIRMED_PAGE = page("Subscription confirmed", "<p>Thank you: your subscription is confirmed.</p>");
const INVALID_LINK_PAGE = page(
  "Link not valid",
  "<p>This confirmation link is not valid: it was used already, has expired, or is not complete.</p>",
);

/**
 * `GET|HEAD|POST /confirm/{token}`. GET and HEAD change nothing (mail scanners and link previews follow
 * links): a pending confirmation gets a page whose button POSTs to the same URL, anything else 404. POST
 * confirms (confirmSubscription) and answers the confirmed page, or 404 for a used, expired or unknown
 * token alike; `onConfirmed` runs after the commit. Another method is 405.
 */
export async function confirmRoute(
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  token: string,
  now: number,
  onConfirmed: () => void,
): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && method !== "POST")
    return sendPage(req, res, 405, METHOD_NOT_ALLOWED_PAGE, { allow: "GET, HEAD, POST" });
  if (method !== "POST") {
    const pending = await confirmationPending(store, token, now);
    return sendPage(req, res, pending ? 200 : 404, pending ? CONFIRM_FORM : INVALID_LINK_PAGE);
  }
  if (!(await discardBody(req))) return sendPage(req, res, 413, BODY_TOO_LARGE_PAGE, { connection: "close" });
  const confirmed = await confirmSubscription(store, token, now, {
    ...requesterOf(req),
    shown: CONFIRM_SHOWN,
  });
  if (confirmed) onConfirmed();
  return sendPage(req, res, confirmed ? 200 : 404, confirmed ? CONFIRMED_PAGE : INVALID_LINK_PAGE);
}
