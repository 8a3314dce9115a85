// `GET|HEAD|POST /u/{token}`, the one-click unsubscribe link (tokens: operations/mailing/unsubscribe.ts):
// GET shows the preference page (unsubscribe from this list, from all, or change the mail format:
// preferences.ts); POST (the one-click body, or the button) makes the membership `unsubscribed`. A token that does not verify is 404. The page's second button, and `{{unsubscribe_all}}`
// in the template, lead to `/u/{token}/all`: the address goes on the account's opt-out-all set
// (unsubscribe-all.ts).

import type http from "node:http";
import type { Store } from "../db/database.js";
import { recordUnsubscribe } from "../tables/tracking.js";
import { subscriberById, subscriberFormat, unsubscribeMembership } from "../tables/subscribers.js";
import { recordConsent } from "../tables/consents.js";
import {
  BODY_TOO_LARGE_PAGE,
  METHOD_NOT_ALLOWED_PAGE,
  discardBody,
  page,
  requesterOf,
  sendPage,
} from "./pages.js";
import { formatForm } from "./preferences.js";
import { unsubscribeKey } from "../operations/mailing/unsubscribe.js";
import { verifyUnsubscribeToken } from "../operations/mailing/unsubscribe.js";

/** What the consent record keeps of a withdrawal by this link (its page, or a mail program's one click). */
const UNSUBSCRIBE_SHOWN =
  "Unsubscribe. Press the button to stop receiving this mailing list. [Unsubscribe] (or the mail program's one-click unsubscribe)";

/**
 * The preference page of a verified token: unsubscribe from this list (one-click form), from all
 * (`/u/{token}/all`), or change the mail format (`/u/{token}/format`, preferences.ts).
 */
function unsubscribeForm(token: string, format: string): string {
  return page(
    "Unsubscribe",
    '<p>Press the button to stop receiving this mailing list.</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>' +
      `<p>Or stop every mailing list of this sender:</p><form method="post" action="${token}/all"><button type="submit">Unsubscribe from all</button></form>` +
      `<p>Or keep getting it, in another format:</p>${formatForm(format, `${token}/format`)}`,
  );
}
const UNSUBSCRIBED_PAGE = page(
  "Unsubscribed",
  "<p>You are unsubscribed from this mailing list and will not receive it any more.</p>",
);
const INVALID_PAGE = page("Link not valid", "<p>This unsubscribe link is not valid or not complete.</p>");

/**
 * `GET|HEAD|POST /u/{token}`: GET shows the button, POST unsubscribes (RFC 8058 one-click); 404 for a
 * token that does not verify, 405 for another method.
 */
export async function unsubscribeRoute(
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
  // The token matched its pattern (digits, dots, base64url): safe in the second form's relative action.
  if (method !== "POST") {
    const format = await subscriberFormat(store.db, ids.subscriberId);
    return sendPage(req, res, 200, unsubscribeForm(token, format ?? "HTML"));
  }
  await store.write(async (trx) => {
    await unsubscribeMembership(trx, ids.listId, ids.subscriberId, now);
    await recordUnsubscribe(trx, ids.sendingId, ids.subscriberId, now);
    const subscriber = await subscriberById(trx, ids.subscriberId);
    if (subscriber !== undefined && subscriber.email !== "")
      await recordConsent(
        trx,
        {
          accountId: subscriber.account_id,
          subscriberId: ids.subscriberId,
          listId: ids.listId,
          kind: "withdrawn",
          source: "unsubscribe link",
          ...requesterOf(req),
          text: UNSUBSCRIBE_SHOWN,
        },
        now,
      );
  });
  return sendPage(req, res, 200, UNSUBSCRIBED_PAGE);
}
