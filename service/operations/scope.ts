// What every operation handler works with (service/operations/service.ts makes one per service): the
// store, the sign-in, the clock, the service's settings and the hooks that wake the workers.

import type { CallContext } from "../../generated/server.js";
import type { Authenticator } from "../auth/authenticator.js";
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
  /** Told which account a request authenticated as (request logs). */
  readonly onAccount?: (requestId: string, account: Account) => void;
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
  /** Signs the call in (InvalidCredentials, TooManyAttempts otherwise) and tells onAccount. */
  account(context: CallContext): Promise<Account>;
}
