// The console's HTTP plumbing: cookies, a bounded form body, and answers that always carry the console's
// security headers (a CSP without inline script, no framing, no caching, no sniffing, no referrer).

import type http from "node:http";
import type { Html } from "./html.js";

/** The console's pages: scripts and styles only from /console/static/, frames only of the console itself. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * A newsletter or mail shown in a frame: no script at all (the sandbox has no allow-scripts, and the CSP
 * says so again should the frame's address be opened on its own), its own inline styles, and images only
 * inline (`data:`), so looking at a mail never fetches its tracking pixel or a sender's remote image.
 */
const FRAME_CSP =
  "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/** Longest form body the console reads (a sign-in or an action), in bytes. */
const MAX_FORM_BYTES = 16 * 1024;
/** Time a form body may take to arrive, in ms. */
const FORM_TIMEOUT_MS = 10_000;
/** Longest Cookie header the console looks at, in characters. */
const MAX_COOKIE_CHARS = 8192;

function baseHeaders(type: string, csp: string, frame: "deny" | "sameorigin"): http.OutgoingHttpHeaders {
  return {
    "content-type": type,
    "cache-control": "no-store",
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "x-frame-options": frame === "deny" ? "DENY" : "SAMEORIGIN",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  };
}

export interface Answer {
  readonly status?: number;
  readonly cookies?: readonly string[];
  readonly headers?: http.OutgoingHttpHeaders;
}

/** A console page (HTML). */
export function sendHtml(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Html,
  answer: Answer = {},
): void {
  const text = Buffer.from(`<!doctype html>\n${body.text}`, "utf8");
  res.writeHead(answer.status ?? 200, {
    ...baseHeaders("text/html; charset=utf-8", PAGE_CSP, "deny"),
    "content-length": text.length,
    ...(answer.cookies === undefined ? {} : { "set-cookie": [...answer.cookies] }),
    ...answer.headers,
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** Content shown inside a sandboxed frame of a console page (a rendered newsletter, a mail's HTML part). */
export function sendFrame(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  type: string,
  body: string,
): void {
  const text = Buffer.from(body, "utf8");
  res.writeHead(200, { ...baseHeaders(type, FRAME_CSP, "sameorigin"), "content-length": text.length });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** Plain text or JSON (progress polls, raw sources). */
export function sendData(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  type: string,
  body: string | Buffer,
  status = 200,
): void {
  const text = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  res.writeHead(status, {
    ...baseHeaders(type, "default-src 'none'; frame-ancestors 'none'", "deny"),
    "content-length": text.length,
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** 303 to a console path (never anywhere else). */
export function redirect(res: http.ServerResponse, path: string, cookies: readonly string[] = []): void {
  if (!isConsolePath(path)) throw new Error(`not a console path: ${path}`);
  res.writeHead(303, {
    ...baseHeaders("text/plain; charset=utf-8", "default-src 'none'", "deny"),
    location: path,
    "content-length": 0,
    ...(cookies.length === 0 ? {} : { "set-cookie": [...cookies] }),
  });
  res.end();
}

/**
 * Whether `path` is a path of this console: starts with /console/, no second slash or backslash at its
 * start, no scheme, no control character; so a sign-in's `next` can never lead to another site.
 */
export function isConsolePath(path: string): boolean {
  if (path.length > 512 || !path.startsWith("/console/")) return false;
  if (/[\\\u0000-\u001f\u007f]/.test(path)) return false;
  try {
    const resolved = new URL(path, "http://console.invalid");
    return resolved.origin === "http://console.invalid" && resolved.pathname.startsWith("/console/");
  } catch {
    return false;
  }
}

/** The cookies of a request (the first of each name; at most MAX_COOKIE_CHARS of the header looked at). */
export function cookies(req: http.IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  const header = req.headers.cookie;
  if (typeof header !== "string") return found;
  for (const part of header.slice(0, MAX_COOKIE_CHARS).split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!found.has(name)) found.set(name, part.slice(eq + 1).trim());
  }
  return found;
}

export interface CookieOptions {
  readonly secure: boolean;
  /** Seconds; 0 deletes the cookie. */
  readonly maxAge: number;
}

/** A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/console/, Secure when asked. */
export function cookie(name: string, value: string, options: CookieOptions): string {
  return (
    `${name}=${value}; Path=/console/; HttpOnly; SameSite=Strict; Max-Age=${options.maxAge}` +
    (options.secure ? "; Secure" : "")
  );
}

export class FormError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An application/x-www-form-urlencoded body of at most MAX_FORM_BYTES, read within FORM_TIMEOUT_MS;
 * FormError (413, 408, 415) otherwise. Repeated names keep their first value.
 */
export function readForm(req: http.IncomingMessage): Promise<Map<string, string>> {
  const type = (req.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return Promise.reject(new FormError(415, "A console form is sent as application/x-www-form-urlencoded."));
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_FORM_BYTES)
    return Promise.reject(new FormError(413, `A console form is at most ${MAX_FORM_BYTES} bytes.`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: FormError | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.removeListener("data", onData);
      if (error !== undefined) {
        req.resume();
        reject(error);
        return;
      }
      const form = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString("utf8")))
        if (!form.has(name)) form.set(name, value);
      resolve(form);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES)
        finish(new FormError(413, `A console form is at most ${MAX_FORM_BYTES} bytes.`));
      else chunks.push(chunk);
    };
    const timer = setTimeout(() => {
      finish(new FormError(408, "The form took too long to arrive."));
      req.socket.destroy();
    }, FORM_TIMEOUT_MS);
    timer.unref();
    req.on("data", onData);
    req.once("end", () => finish(undefined));
    req.once("error", () => finish(new FormError(400, "The form could not be read.")));
  });
}
