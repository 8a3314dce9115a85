// What the console's routes share: the service parts they use, what a route gets, and a route itself.

import type http from "node:http";
import type { Authenticator } from "../auth/authenticator.js";
import type { ConsoleConfig } from "../config.js";
import type { Store } from "../db/database.js";
import type { Account } from "../db/schema.js";

export interface ConsoleDeps {
  readonly store: Store;
  readonly auth: Authenticator;
  readonly config: ConsoleConfig;
  readonly outboxDir: string;
  readonly smsOutboxDir: string;
  readonly now: () => number;
  /** Wakes the workers after an action queued work (an import, a sending). */
  readonly wake?: () => void;
}

/** What a console route gets: the request, its signed-in account and the session's CSRF token. */
export interface RouteContext {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  readonly url: URL;
  readonly match: RegExpExecArray;
  readonly account: Account;
  readonly csrf: string;
  readonly deps: ConsoleDeps;
  /** The request's form (POST routes). */
  readonly form: Map<string, string> | undefined;
}

/**
 * A console route: method, path pattern, whether a signed-out browser is sent to the sign-in page ("page")
 * or answered 401 ("data": polls, frames, raw sources), and the handler.
 */
export interface ConsoleRoute {
  readonly method: "GET" | "POST";
  readonly path: RegExp;
  readonly kind: "page" | "data";
  run(ctx: RouteContext): Promise<void>;
}
