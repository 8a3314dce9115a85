// Accounts' credentials (docs/service-interface.md "Authentication and errors", docs/security.md "Sign-in
// and credentials"): salted scrypt hashes; one InvalidCredentials answer, with the same work, for an
// unknown user, a wrong password and empty credentials; credentials longer than any account can have refused before any work; a verified pair
// cached for at most 60 s per source under a keyed hash of (source, name, password), never the password
// itself; growing delays per name, per source and per trusted pair, shared through the database
// (auth-throttle.ts); at most a few password checks at once, in turn per source (auth-gate.ts).

import { hash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../../generated/server.js";
import { type Store, sqliteOf } from "../db/database.js";
import type { Account } from "../db/schema.js";
import {
  type AccountCheck,
  ACCOUNT_BY_ID,
  accountById,
  accountByName,
  accountMatches,
} from "../tables/accounts.js";
import { CheckGate, GateFull } from "./gate.js";
import {
  ThrottleStore,
  type ThrottleKeys,
  type ThrottleRows,
  sourceOf,
  trusted,
  waitMs,
} from "./throttle.js";
import { credentialTooLong, invalidCredentials, tooManyAttempts } from "../common/errors.js";

/** The longest user name an account can have (the admin CLI's rule), in characters (code points). */
export const MAX_USERNAME = 100;
/** The longest password an account can have (the admin CLI's rule), in characters (code points). */
export const MAX_PASSWORD = 1024;

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const;

function scryptAsync(
  password: string,
  salt: Buffer,
  N: number,
  r: number,
  p: number,
  keylen: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` with a fresh 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p) || expected.length === 0)
    return false;
  const key = await scryptAsync(password, salt, N, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

export interface AuthOptions {
  readonly cacheTtlMs?: number;
  readonly now?: () => number;
  /** Password checks running at once (default 2). */
  readonly concurrency?: number;
  /** Password checks waiting at most (default 64). */
  readonly queue?: number;
  /** Password checks one source may have running or waiting (default 8). */
  readonly perSource?: number;
}

interface CachedPair {
  readonly accountId: number;
  readonly passwordVersion: number;
  readonly expires: number;
}

/** A cached verification, to be confirmed against the account row (Authenticator.cached). */
export interface CachedCheck extends AccountCheck {
  readonly pairKey: string;
}

/** Verified pairs kept before the oldest are dropped (each entry is fixed-size: a hash and three numbers). */
const MAX_CACHED = 50_000;

/** What an Authenticator has done since it started (tests, and how an attack went). */
export interface AuthStats {
  /** Password checks run (scrypt). */
  checks: number;
  /** Attempts refused during a delay, without a check. */
  throttled: number;
  /** Attempts refused because the source's lane or the queue of checks was full. */
  busy: number;
  /** Attempts refused for an over-long user name or password, before any work. */
  tooLong: number;
}

/** Whether `text` has more than `max` code points (counting no further than that). */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

/** Refuses credentials longer than any account's before anything else is done with them. */
function checkCredentialLengths(username: string, password: string): void {
  if (longerThan(username, MAX_USERNAME)) throw credentialTooLong("strUsername", MAX_USERNAME);
  if (longerThan(password, MAX_PASSWORD)) throw credentialTooLong("strPassword", MAX_PASSWORD);
}

export class Authenticator {
  /** 32 random bytes in base64: a fixed-length prefix, so the hash below is keyed. */
  private readonly cacheKey = randomBytes(32).toString("base64");
  private readonly cache = new Map<string, CachedPair>();
  /** Checks under way by pair key: the same pair from the same source at once shares one check. */
  private readonly pending = new Map<string, Promise<Account>>();
  private readonly throttle: ThrottleStore;
  private readonly gate: CheckGate;
  private readonly ttl: number;
  private readonly now: () => number;
  private dummyHash: Promise<string> | undefined;
  readonly stats: AuthStats = { checks: 0, throttled: 0, busy: 0, tooLong: 0 };

  constructor(
    private readonly store: Store,
    options: AuthOptions = {},
  ) {
    this.ttl = Math.min(options.cacheTtlMs ?? 60_000, 60_000);
    this.now = options.now ?? Date.now;
    this.throttle = new ThrottleStore(store);
    this.gate = new CheckGate(options);
  }

  /**
   * A verification of this pair from this source cached less than the TTL ago, without reading the
   * database: the caller reads the account row itself (in its own transaction), takes it only when
   * `matches` says so, and otherwise calls `drop` and `verify`. Undefined when nothing is cached; throws
   * TooLong for credentials longer than any account's. A cached pair is never delayed: this source proved
   * it with a password check less than a minute ago.
   */
  cached(username: string, password: string, remoteAddress: string): CachedCheck | undefined {
    this.lengths(username, password);
    const pairKey = this.pairKey(sourceOf(remoteAddress), username, password);
    const cached = this.cache.get(pairKey);
    if (cached === undefined || cached.expires <= this.now()) return undefined;
    return { pairKey, username, accountId: cached.accountId, passwordVersion: cached.passwordVersion };
  }

  /** Whether the account row read for a cached check is still that pair's account. */
  static matches(check: CachedCheck, account: Account | undefined): account is Account {
    return accountMatches(check, account);
  }

  /** Forgets a cached pair that no longer matches its account. */
  drop(check: CachedCheck): void {
    this.cache.delete(check.pairKey);
  }

  /**
   * The account of a right pair from the caller at `remoteAddress`; throws TooLong, InvalidCredentials,
   * TooManyAttempts (during a delay, or too many checks at once from this source) or ServerBusy (too many
   * checks waiting) otherwise.
   */
  async verify(username: string, password: string, remoteAddress: string): Promise<Account> {
    this.lengths(username, password);
    const source = sourceOf(remoteAddress);
    const pairKey = this.pairKey(source, username, password);
    const cached = this.cache.get(pairKey);
    if (cached !== undefined && cached.expires > this.now()) {
      // On SQLite a prepared statement when no transaction is open (writeSync work, whose log sync may
      // still be in flight, never writes accounts); else Kysely, which waits for the transaction.
      const sqlite = sqliteOf(this.store.db);
      const read = sqlite?.readNow(
        () => sqlite.statement(ACCOUNT_BY_ID).get(cached.accountId) as Account | undefined,
      );
      const account = read !== undefined ? read.value : await accountById(this.store.db, cached.accountId);
      if (
        Authenticator.matches(
          { pairKey, username, accountId: cached.accountId, passwordVersion: cached.passwordVersion },
          account,
        )
      ) {
        return account;
      }
      this.cache.delete(pairKey);
    }
    let pending = this.pending.get(pairKey);
    if (pending === undefined) {
      pending = this.attempt(username, password, source, pairKey).finally(() => this.pending.delete(pairKey));
      this.pending.set(pairKey, pending);
    }
    return pending;
  }

  /** Forgets every cached pair (a password change made through this instance). */
  forget(): void {
    this.cache.clear();
  }

  /** The throttle table as this instance sees it (tests). */
  get throttleStore(): ThrottleStore {
    return this.throttle;
  }

  /**
   * One password check, unless a delay applies: what this instance knows of first, then the database.
   * The name's existence plays no part before the check, so a delayed unknown name and a delayed known
   * one get the same answer after the same work.
   */
  private async attempt(
    username: string,
    password: string,
    source: string,
    pairKey: string,
  ): Promise<Account> {
    const keys = await this.throttle.keys(username.toLowerCase(), source);
    const known = this.throttle.knownWait(keys, this.now());
    if (known > 0) throw this.throttled(known);
    let rows = await this.throttle.read(keys, this.now());
    this.refuseDuringDelay(rows);
    let turn: ReturnType<CheckGate["acquire"]>;
    try {
      turn = this.gate.acquire(source, trusted(rows, this.now()));
    } catch (error) {
      if (!(error instanceof GateFull)) throw error;
      this.stats.busy++;
      if (error.reason === "source") throw tooManyAttempts(1, "source");
      throw new ServiceError(
        "ServerBusy",
        "Too many sign-ins are waiting for a password check; try again in a moment.",
        { status: 503 },
      );
    }
    const waited = turn instanceof Promise;
    const release = turn instanceof Promise ? await turn : turn;
    try {
      if (waited) {
        // Other attempts may have failed while this one waited for its turn (here or on another instance).
        rows = await this.throttle.read(keys, this.now());
        this.refuseDuringDelay(rows);
      }
      return await this.check(username, password, keys, rows, pairKey);
    } finally {
      release();
    }
  }

  private async check(
    username: string,
    password: string,
    keys: ThrottleKeys,
    rows: ThrottleRows,
    pairKey: string,
  ): Promise<Account> {
    const account = username === "" ? undefined : await accountByName(this.store.db, username);
    // Unknown users and empty credentials cost one scrypt too, so timing tells nothing.
    this.stats.checks++;
    const ok = await verifyPassword(account?.password_hash ?? (await this.dummy()), password);
    const now = this.now();
    if (account === undefined || !ok || password === "") {
      await this.throttle.fail(keys, rows.pair !== undefined, now);
      throw invalidCredentials();
    }
    if (ThrottleStore.needsTrust(rows.pair, now)) await this.throttle.trust(keys.pair, now);
    this.cache.delete(pairKey);
    this.cache.set(pairKey, {
      accountId: account.id,
      passwordVersion: account.password_version,
      expires: now + this.ttl,
    });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    return account;
  }

  private refuseDuringDelay(rows: ThrottleRows): void {
    const wait = waitMs(rows, this.now());
    if (wait > 0) throw this.throttled(wait);
  }

  private throttled(waitMs: number): ServiceError {
    this.stats.throttled++;
    return tooManyAttempts(Math.ceil(waitMs / 1000), "failures");
  }

  private lengths(username: string, password: string): void {
    try {
      checkCredentialLengths(username, password);
    } catch (error) {
      this.stats.tooLong++;
      throw error;
    }
  }

  /** A keyed SHA-256 of (source, name, password), the secret key first at a fixed length: one call, no HMAC object. */
  private pairKey(source: string, username: string, password: string): string {
    return hash("sha256", `${this.cacheKey}${source}\0${username}\0${password}`, "base64");
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(16).toString("base64"));
    return this.dummyHash;
  }
}
