// Console sign-ins: a random 32-byte token in an HttpOnly cookie, kept server-side only as its SHA-256
// (console_sessions), with a fixed end, ended by a password change; at most MAX_SESSIONS per account (the oldest go at sign-in). The
// CSRF token of a session is derived from its token, so forms need no stored secret of their own.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Store } from "../db/database.js";
import type { Account } from "../db/schema.js";
import { deleteSession, insertSession, sessionAccount } from "../tables/console-sessions.js";

/** Sessions an account keeps at most (a new sign-in ends the oldest beyond this). */
export const MAX_SESSIONS = 10;
/** Expired sessions a sign-in deletes at most (more than it makes, so they never pile up). */
const PRUNE_ROWS = 16;
/** A token in the cookie: 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("base64url");
}

/** The CSRF token of forms of the session whose cookie token is `token` (or of a sign-in form's nonce). */
export function csrfToken(token: string): string {
  return createHash("sha256").update(`console-csrf\0${token}`, "utf8").digest("base64url");
}

/** Whether a form's CSRF field is the one for `token` (constant time). */
export function csrfMatches(token: string, field: string | undefined): boolean {
  if (field === undefined) return false;
  const expected = Buffer.from(csrfToken(token), "utf8");
  const given = Buffer.from(field, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function isToken(text: string | undefined): text is string {
  return text !== undefined && TOKEN.test(text);
}

export interface Session {
  readonly token: string;
  readonly account: Account;
  readonly expiresAt: number;
}

export class SessionStore {
  constructor(
    private readonly store: Store,
    private readonly lifetimeMs: number,
  ) {}

  /** Starts a session for the account; its token (for the cookie). */
  async create(account: Pick<Account, "id" | "password_version">, now: number): Promise<string> {
    const accountId = account.id;
    const token = newToken();
    await insertSession(
      this.store.db,
      {
        token_hash: tokenHash(token),
        account_id: accountId,
        password_version: account.password_version,
        created_at: now,
        expires_at: now + this.lifetimeMs,
      },
      MAX_SESSIONS,
      PRUNE_ROWS,
      now,
    );
    return token;
  }

  /** The live session of a cookie token, with its account; undefined for anything else. */
  async find(token: string | undefined, now: number): Promise<Session | undefined> {
    if (!isToken(token)) return undefined;
    const row = await sessionAccount(this.store.db, tokenHash(token), now);
    if (row === undefined) return undefined;
    const { session_expires_at, ...account } = row;
    return { token, account, expiresAt: Number(session_expires_at) };
  }

  async end(token: string): Promise<void> {
    await deleteSession(this.store.db, tokenHash(token));
  }
}
