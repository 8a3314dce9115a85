// The unsubscribe-from-all link of a newsletter mail: `{{unsubscribe_all}}` in a template is
// `{publicUrl}/u/{token}/all`, the recipient's unsubscribe token (operations/mailing/unsubscribe.ts) with
// `/all`, and the page of the plain unsubscribe link offers it as a second button. GET shows a button; POST
// puts the address on the account's opt-out-all set (tables/optouts.ts addOptout, as `optout
// add` does: every membership of the address in the account becomes `unsubscribed` and no list of the
// account mails it again). A token that does not verify is 404, a subscriber no longer there (erased) 404
// too; a second POST changes nothing.

import type http from "node:http";
import type { Store } from "../db/database.js";
import { recordUnsubscribe } from "../tables/tracking.js";
import { subscriberById } from "../tables/subscribers.js";
import { addOptout } from "../tables/optouts.js";
import {
  BODY_TOO_LARGE_PAGE,
  METHOD_NOT_ALLOWED_PAGE,
  buttonPage,
  discardBody,
  page,
  requesterOf,
  sendPage,
} from "./pages.js";
import { recordConsent } from "../tables/consents.js";
import { unsubscribeKey, verifyUnsubscribeToken } from "../operations/mailing/unsubscribe.js";

const FORM = buttonPage(
  "Unsubscribe from all",
  "Press the button to stop receiving every mailing list of this sender.",
  "Unsubscribe from all",
);
const DONE_PAGE = page(
  "Unsubscribed from all",
  "<p>You are unsubscribed from every mailing list of this sender and will not receive any of them.</p>",
);
const INVALID_PAGE = page("Link not valid", "<p>This unsubscribe link is not valid or not complete.</p>");

/** `GET|HEAD|POST /u/{token}/all` (see the top of this file). */
export async function unsubscribeAllRoute(
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  token: string,
  now: number,
): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && method !== "POST")
    return sendPage(req, res, 405, METHOD_NOT_ALLOWED_PAGE, { allow: "GET, HEAD, POST" });
  const ids = verifyUnsubscribeToken(await unsubscribeKey(store.db), token);
  if (method === "POST" && !(await discardBody(req)))
    return sendPage(req, res, 413, BODY_TOO_LARGE_PAGE, { connection: "close" });
  if (ids === undefined) return sendPage(req, res, 404, INVALID_PAGE);
  if (method !== "POST") return sendPage(req, res, 200, FORM);
  const done = await store.write(async (trx) => {
    const subscriber = await subscriberById(trx, ids.subscriberId);
    if (subscriber === undefined || subscriber.email === "") return false;
    await addOptout(trx, subscriber.account_id, subscriber.email, now);
    await recordUnsubscribe(trx, ids.sendingId, ids.subscriberId, now);
    await recordConsent(
      trx,
      {
        accountId: subscriber.account_id,
        subscriberId: ids.subscriberId,
        listId: null,
        kind: "withdrawn",
        source: "unsubscribe-from-all link",
        ...requesterOf(req),
        text: "Unsubscribe from all. Press the button to stop receiving every mailing list of this sender. [Unsubscribe from all]",
      },
      now,
    );
    return true;
  });
  return sendPage(req, res, done ? 200 : 404, done ? DONE_PAGE : INVALID_PAGE);
}
