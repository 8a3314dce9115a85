// The console's page shell (header, navigation, main) and the small formatters its pages share.

import type { Account } from "../db/schema.js";
import { type Html, html } from "./html.js";

const NAV: ReadonlyArray<readonly [path: string, label: string]> = [
  ["/console/", "Dashboard"],
  ["/console/lists", "Lists"],
  ["/console/subscribers", "Subscribers"],
  ["/console/imports", "Imports"],
  ["/console/newsletters", "Newsletters"],
  ["/console/sendings", "Sendings"],
  ["/console/outbox", "Outbox"],
  ["/console/sms", "SMS"],
  ["/console/triggers", "Triggers"],
  ["/console/transactional", "Transactional"],
  ["/console/credits", "Credits"],
];

export interface PageContext {
  readonly account: Account;
  readonly csrf: string;
  /** The path of the navigation entry this page belongs to. */
  readonly section: string;
}

/** A whole console page: `title` in the tab and the heading, `body` in main. */
export function page(
  ctx: PageContext,
  title: string,
  body: Html | readonly Html[],
  scripts: readonly string[] = [],
): Html {
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title} · Console</title>
<link rel="stylesheet" href="/console/static/console.css">
${scripts.includes("uplot.js") ? html`<link rel="stylesheet" href="/console/static/uplot.css">` : ""}
${scripts.map((s) => html`<script src="/console/static/${s}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<span class="brand">Newsletter console</span>
<nav aria-label="Sections"><ul>
${NAV.map(([path, label]) => html`<li><a href="${path}"${ctx.section === path ? html` aria-current="page"` : ""}>${label}</a></li>`)}
</ul></nav>
<form class="signout" method="post" action="/console/sign-out">
<input type="hidden" name="_csrf" value="${ctx.csrf}">
<span class="who">${ctx.account.username}</span>
<button type="submit">Sign out</button>
</form>
</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

/** A bare page (sign-in, errors before a session). */
export function barePage(title: string, body: Html): Html {
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title} · Console</title>
<link rel="stylesheet" href="/console/static/console.css">
</head>
<body class="bare">
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

const NUMBER = new Intl.NumberFormat("en-US");

export function count(n: number | bigint): string {
  return NUMBER.format(n);
}

/** `part` of `whole` as a percentage with one decimal ("–" without a whole). */
export function rate(part: number, whole: number): string {
  if (whole <= 0) return "–";
  return `${((100 * part) / whole).toFixed(1)} %`;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** An instant as the account's wall-clock time (yyyy-mm-dd hh:mm), or "–". */
export function when(account: Pick<Account, "time_zone">, ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  let format = formats.get(account.time_zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("sv-SE", {
        timeZone: account.time_zone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
      });
    } catch {
      format = new Intl.DateTimeFormat("sv-SE", { timeZone: "UTC", dateStyle: "short", timeStyle: "short" });
    }
    if (formats.size < 1000) formats.set(account.time_zone, format);
  }
  return format.format(new Date(Number(ms)));
}

/** A table with a caption; `empty` shown instead when there are no rows. */
export function table(caption: string, head: readonly string[], rows: readonly Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll"><table>
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** A "next page" link carrying a keyset cursor (never an offset). */
export function nextLink(path: string, params: Record<string, string>): Html {
  return html`<p class="pager"><a rel="next" href="${`${path}?${new URLSearchParams(params).toString()}`}">Next page →</a></p>`;
}
