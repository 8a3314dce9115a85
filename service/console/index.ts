// The operator's console (docs/console.md): server-rendered pages under /console/ for the people who run an
// account, signed in with the account's API credentials (the same scrypt check, throttle and lock-out),
// a server-side session in an HttpOnly SameSite=Strict cookie, a CSRF token in every form, and every
// query scoped by the session's account_id (another account's ids answer as missing ones do).

import type http from "node:http";
import { ServiceError } from "../../generated/server.js";
import type { Account } from "../db/schema.js";
import { html } from "./html.js";
import { FormError, cookie, cookies, isConsolePath, readForm, redirect, sendData, sendHtml } from "./http.js";
import { barePage } from "./layout.js";
import type { ConsoleDeps, ConsoleRoute } from "./context.js";
import { ROUTES } from "./routes.js";
import { SessionStore, csrfMatches, csrfToken, isToken, newToken } from "./sessions.js";
import { serveStatic } from "./static.js";
import { clientAddress } from "../http/client-address.js";

const SESSION_COOKIE = "eas_console";
/** The sign-in form's nonce (double-submit): a sign-in can only come from the console's own form. */
const SIGNIN_COOKIE = "eas_console_signin";

/** Answers /console and /console/...: true when it took the request. */
export type ConsoleHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;

function secure(req: http.IncomingMessage, deps: ConsoleDeps): boolean {
  return deps.config.secureCookie || (req.socket as { encrypted?: boolean }).encrypted === true;
}

function notFound(req: http.IncomingMessage, res: http.ServerResponse): void {
  sendHtml(
    req,
    res,
    barePage("Not found", html`<p>There is no such page. <a href="/console/">Dashboard</a></p>`),
    {
      status: 404,
    },
  );
}

/** A POST from another site (the browser says so) is refused whatever its form holds. */
function crossSite(req: http.IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  return site !== undefined && site !== "same-origin" && site !== "none";
}

export function createConsole(deps: ConsoleDeps): ConsoleHandler {
  const sessions = new SessionStore(deps.store, deps.config.sessionMs);

  function signInForm(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    next: string,
    options: { status?: number; error?: string; username?: string } = {},
  ): void {
    const jar = cookies(req);
    const existing = jar.get(SIGNIN_COOKIE);
    const nonce = isToken(existing) ? existing : newToken();
    const body = html`<form class="signin" method="post" action="/console/sign-in">
${options.error === undefined ? "" : html`<p class="error" role="alert">${options.error}</p>`}
<input type="hidden" name="_csrf" value="${csrfToken(nonce)}">
<input type="hidden" name="next" value="${next}">
<label for="username">User name</label>
<input id="username" name="username" autocomplete="username" required maxlength="100" value="${options.username ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
<p class="hint">The account's API user name and password. Failed attempts are throttled as the API's are.</p>`;
    sendHtml(req, res, barePage("Sign in", body), {
      status: options.status ?? 200,
      cookies: [cookie(SIGNIN_COOKIE, nonce, { secure: secure(req, deps), maxAge: 3600 })],
    });
  }

  async function signIn(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = await readForm(req);
    const next = form.get("next") ?? "/console/";
    const safeNext = isConsolePath(next) ? next : "/console/";
    const nonce = cookies(req).get(SIGNIN_COOKIE);
    if (!isToken(nonce) || !csrfMatches(nonce, form.get("_csrf")) || crossSite(req)) {
      signInForm(req, res, safeNext, {
        status: 403,
        error: "The sign-in form expired or came from elsewhere; please sign in again.",
      });
      return;
    }
    const username = form.get("username") ?? "";
    const password = form.get("password") ?? "";
    let account: Account;
    try {
      account = await deps.auth.verify(username, password, clientAddress(req));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const status = error.code === "TooManyAttempts" ? 429 : error.code === "ServerBusy" ? 503 : 401;
      signInForm(req, res, safeNext, {
        status,
        error: error.message,
        username: username.slice(0, 100),
      });
      return;
    }
    const token = await sessions.create(account, deps.now());
    const options = { secure: secure(req, deps), maxAge: Math.floor(deps.config.sessionMs / 1000) };
    redirect(res, safeNext, [
      cookie(SESSION_COOKIE, token, options),
      cookie(SIGNIN_COOKIE, "", { ...options, maxAge: 0 }),
    ]);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const rawPath = (req.url ?? "/").split("?", 1)[0]!;
    if (rawPath !== "/console" && !rawPath.startsWith("/console/")) return false;
    if (!deps.config.enabled) return false;
    if (rawPath === "/console") {
      redirect(res, "/console/");
      return true;
    }
    const method = req.method ?? "GET";
    const reading = method === "GET" || method === "HEAD";
    if (!reading && method !== "POST") {
      sendData(req, res, "text/plain; charset=utf-8", "Method not allowed.\n", 405);
      return true;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://console.invalid");
    } catch {
      notFound(req, res);
      return true;
    }
    const path = url.pathname;
    if (path.startsWith("/console/static/")) {
      if (!reading) sendData(req, res, "text/plain; charset=utf-8", "Method not allowed.\n", 405);
      else await serveStatic(req, res, path.slice("/console/static/".length));
      return true;
    }
    try {
      if (path === "/console/sign-in") {
        if (reading) {
          const session = await sessions.find(cookies(req).get(SESSION_COOKIE), deps.now());
          const next = url.searchParams.get("next") ?? "/console/";
          if (session !== undefined) redirect(res, isConsolePath(next) ? next : "/console/");
          else signInForm(req, res, isConsolePath(next) ? next : "/console/");
        } else await signIn(req, res);
        return true;
      }
      const session = await sessions.find(cookies(req).get(SESSION_COOKIE), deps.now());
      if (path === "/console/sign-out" && !reading) {
        const form = await readForm(req);
        if (session !== undefined && csrfMatches(session.token, form.get("_csrf")) && !crossSite(req))
          await sessions.end(session.token);
        else if (session !== undefined) {
          sendData(req, res, "text/plain; charset=utf-8", "The form's CSRF token is wrong.\n", 403);
          return true;
        }
        redirect(res, "/console/sign-in", [
          cookie(SESSION_COOKIE, "", { secure: secure(req, deps), maxAge: 0 }),
        ]);
        return true;
      }
      const found = route(method === "HEAD" ? "GET" : method, path);
      if (session === undefined) {
        if (reading && found?.[0].kind !== "data") {
          const next = `${url.pathname}${url.search}`;
          redirect(
            res,
            `/console/sign-in?${new URLSearchParams({ next: isConsolePath(next) ? next : "/console/" })}`,
          );
        } else sendData(req, res, "text/plain; charset=utf-8", "Sign in to the console first.\n", 401);
        return true;
      }
      if (found === undefined) {
        notFound(req, res);
        return true;
      }
      const [handler, match] = found;
      let form: Map<string, string> | undefined;
      if (!reading) {
        form = await readForm(req);
        if (!csrfMatches(session.token, form.get("_csrf")) || crossSite(req)) {
          sendHtml(
            req,
            res,
            barePage(
              "Refused",
              html`<p>The form's CSRF token is wrong or the form came from another site; nothing was changed. <a href="/console/">Dashboard</a></p>`,
            ),
            { status: 403 },
          );
          return true;
        }
      }
      await handler.run({
        req,
        res,
        url,
        match,
        account: session.account,
        csrf: csrfToken(session.token),
        deps,
        form,
      });
    } catch (error) {
      if (error instanceof FormError) {
        if (!res.headersSent)
          sendData(req, res, "text/plain; charset=utf-8", `${error.message}\n`, error.status);
        return true;
      }
      throw error;
    }
    return true;
  }
  return handle;
}

function route(method: string, path: string): [ConsoleRoute, RegExpExecArray] | undefined {
  for (const candidate of ROUTES) {
    if (candidate.method !== method) continue;
    const match = candidate.path.exec(path);
    if (match !== null) return [candidate, match];
  }
  return undefined;
}
