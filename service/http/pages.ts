// The small HTML pages of the public token routes (/confirm/{token}, /u/{token}, the tracking 404): fixed
// texts, never any part of the request, served with headers that keep the token in the URL from leaking
// (no Referer, not stored by caches) and the page from being framed or running anything.

import type http from "node:http";
import { clientAddress } from "./client-address.js";
import { readBody } from "./webhook.js";

/** Headers of every page a token route answers. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  // No script, style, image or frame; the one form posts back to the page's own URL.
  "content-security-policy":
    "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

/** A complete page: `title` and `body` are fixed texts of ours (HTML), never request input. */
export function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

/** A page with a button that POSTs (an empty form) back to the page's own URL. */
export function buttonPage(title: string, text: string, button: string, hidden = ""): string {
  return page(
    title,
    `<p>${text}</p><form method="post">${hidden}<button type="submit">${button}</button></form>`,
  );
}

export const METHOD_NOT_ALLOWED_PAGE = page(
  "Method not allowed",
  "<p>This address takes GET, HEAD and POST only.</p>",
);
export const BODY_TOO_LARGE_PAGE = page(
  "Request too large",
  "<p>This form takes a few bytes, not more than 64 KiB.</p>",
);

/** Answers `status` with `body` (none for HEAD) and PAGE_HEADERS plus `extra`. */
export function sendPage(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  body: string,
  extra: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...extra });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Largest body a page's form POST may have (the forms post a few bytes). */
const MAX_FORM_BODY = 65_536;

/**
 * Reads and discards a request body; true when it ended within MAX_FORM_BODY bytes. Past that it stops
 * reading (the caller answers 413 with `connection: close`) instead of destroying the request, so the
 * caller still gets an answer.
 */
export function discardBody(req: http.IncomingMessage): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let size = 0;
    const finish = (whole: boolean) => {
      req.off("data", data).off("end", end).off("error", failed).off("close", failed);
      resolve(whole);
    };
    const data = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BODY) {
        req.pause();
        finish(false);
      }
    };
    const end = () => finish(true);
    const failed = () => finish(false);
    req.on("data", data).on("end", end).on("error", failed).on("close", failed);
  });
}

/** Who sent a request: the peer's address and the browser's User-Agent (for the consent record). */
export function requesterOf(req: http.IncomingMessage): {
  ip: string | undefined;
  userAgent: string | undefined;
} {
  const agent = req.headers["user-agent"];
  return { ip: clientAddress(req) || undefined, userAgent: typeof agent === "string" ? agent : undefined };
}

/** Largest body of a form with fields (the preference form posts `format=HTML`). */
const MAX_FIELDS_BODY = 1024;

/**
 * Reads a url-encoded form body of at most 1 KiB; undefined past that (reading stops there, as
 * discardBody does, and the caller answers 413 with `connection: close`).
 */
export async function readForm(req: http.IncomingMessage): Promise<URLSearchParams | undefined> {
  const body = await readBody(req, MAX_FIELDS_BODY);
  return body === undefined ? undefined : new URLSearchParams(body.toString("utf8"));
}
