// The preference page's third choice, `GET|HEAD|POST /u/{token}/format`: the page of the unsubscribe link
// (unsubscribe.ts) offers unsubscribing from the list, from every list of the sender (unsubscribe-all.ts),
// and this: how the recipient gets mail, HTML or plain text (the sending worker then sends a Text
// subscriber the text part alone). GET shows the choice with the current format checked; POST with
// `format=HTML` or `format=Text` saves it. A token that does not verify, or names a subscriber no longer
// there, is 404; any other value is 400 naming `format`, and nothing changes.

import type http from "node:http";
import type { Store } from "../db/database.js";
import { unsubscribeKey, verifyUnsubscribeToken } from "../operations/mailing/unsubscribe.js";
import { setSubscriberFormat, subscriberFormat } from "../tables/subscribers.js";
import { BODY_TOO_LARGE_PAGE, METHOD_NOT_ALLOWED_PAGE, page, readForm, sendPage } from "./pages.js";

const INVALID_PAGE = page("Link not valid", "<p>This link is not valid or not complete.</p>");
const BAD_FORMAT_PAGE = page(
  "Format not saved",
  "<p>The format must be HTML or Text (plain text); nothing was changed.</p>",
);

/** The mail format a subscriber has, as the choice shows it. */
function isText(format: string): boolean {
  return format.trim().toLowerCase() === "text";
}

/** The format form; `action` is where it posts (relative to the page's URL). */
export function formatForm(format: string, action: string): string {
  const text = isText(format);
  return (
    `<form method="post" action="${action}"><fieldset><legend>Receive this sender's mail as</legend>` +
    `<label><input type="radio" name="format" value="HTML"${text ? "" : " checked"}> HTML (formatted)</label> ` +
    `<label><input type="radio" name="format" value="Text"${text ? " checked" : ""}> Plain text</label>` +
    '</fieldset><button type="submit">Save the format</button></form>'
  );
}

/** `GET|HEAD|POST /u/{token}/format` (see the top of this file). */
export async function formatRoute(
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  token: string,
): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && method !== "POST")
    return sendPage(req, res, 405, METHOD_NOT_ALLOWED_PAGE, { allow: "GET, HEAD, POST" });
  const ids = verifyUnsubscribeToken(await unsubscribeKey(store.db), token);
  const form = method === "POST" ? await readForm(req) : undefined;
  if (method === "POST" && form === undefined)
    return sendPage(req, res, 413, BODY_TOO_LARGE_PAGE, { connection: "close" });
  if (ids === undefined) return sendPage(req, res, 404, INVALID_PAGE);
  if (method !== "POST") {
    const current = await subscriberFormat(store.db, ids.subscriberId);
    if (current === undefined) return sendPage(req, res, 404, INVALID_PAGE);
    // The form posts back to this page's own URL.
    return sendPage(req, res, 200, page("Mail format", formatForm(current, "")));
  }
  const chosen = form!.getAll("format");
  if (chosen.length !== 1 || (chosen[0] !== "HTML" && chosen[0] !== "Text"))
    return sendPage(req, res, 400, BAD_FORMAT_PAGE);
  const format = chosen[0];
  if (!(await store.write((trx) => setSubscriberFormat(trx, ids.subscriberId, format))))
    return sendPage(req, res, 404, INVALID_PAGE);
  return sendPage(
    req,
    res,
    200,
    page(
      "Format saved",
      `<p>You will get this sender's mail ${format === "Text" ? "as plain text" : "in HTML"}.</p>`,
    ),
  );
}
