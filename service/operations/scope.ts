// What every operation handler works with (service/operations/service.ts makes one per service): the
// store, the sign-in, the clock, the service's settings and the hooks that wake the workers.

import type { CallContext } from "../../generated/server.js";
import type { Authenticator, CachedCheck } from "../auth/authenticator.js";
import type { Store } from "../db/database.js";
import type { Account } from "../db/schema.js";

export interface ServiceConfig {
  /** Absolute base URL of the service as subscribers reach it (confirmation links). */
  readonly publicUrl: string;
  /** Default From address of service mail when the account and list set none. */
  readonly mailFrom: string;
}

export interface ImportQueue {
  /** Checks the URL (scheme, host, addresses) and records a queued import; returns its id. */
  enqueue(account: Account, listId: number, url: string): Promise<number>;
}

export interface ServiceDeps {
  readonly store: Store;
  readonly auth: Authenticator;
  readonly config: ServiceConfig;
  readonly imports: ImportQueue;
  readonly now?: () => number;
  /** Told after a transaction that queued mail committed (wakes the outbox worker). */
  readonly onMailQueued?: () => void;
  /** Told after a transaction that paid an SMS committed (wakes the SMS worker). */
  readonly onSmsQueued?: () => void;
  /** Told after SendNewsletter committed a sending (wakes the sending worker). */
  readonly onSendingQueued?: () => void;
}

/** One service's handlers' shared state. */
export interface OperationScope {
  readonly deps: ServiceDeps;
  readonly store: Store;
  readonly now: () => number;
  /** The host name of the public URL (Message-IDs of queued mail). */
  readonly domain: string;
  /** Signs the call in (InvalidCredentials, TooManyAttempts otherwise) and notes the account (noteAccount). */
  account(context: CallContext): Promise<Account>;
  /**
   * PostgreSQL's single-statement writes: the call's credentials as verified less than the cache TTL ago,
   * for a statement that checks the account itself (matchingAccountSql); undefined on SQLite or when
   * nothing is cached. The caller then calls `signedIn` with the row the statement matched, or `stale`
   * when it matched none (and goes on with `account`).
   */
  cachedCheck(context: CallContext): CachedCheck | undefined;
  /** Notes the account a single statement matched (noteAccount). */
  signedIn(context: CallContext, account: Account): void;
  /** Forgets a cached pair its statement did not match (password or name changed). */
  stale(check: CachedCheck): void;
  /**
   * `checks()`'s value, for checks that need no account; when they refuse the call, the credentials are
   * verified first, so a wrong pair still gets its own fault before any other, as on the general path.
   */
  afterCredentials<T>(context: CallContext, checks: () => T): Promise<T>;
}

/** Notes the account a call signed in as in the call's log fields: its request log line names it. */
export function noteAccount(context: CallContext, account: Account): void {
  context.logFields["account"] = account.id;
}
