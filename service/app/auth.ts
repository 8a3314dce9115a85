// Accounts' credentials (docs/service-interface.md "Authentication and errors"): salted scrypt hashes; one
// InvalidCredentials answer, with the same work, for an unknown user, a wrong password and empty
// credentials; a verified pair cached for at most 60 s under a keyed hash of the pair (never the
// password itself); a user name locked for 60 s after 10 failures in 10 minutes.

import { hash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import { sqliteOf } from "../db/database.js";
import type { Account, Database } from "../db/schema.js";
import { invalidCredentials, tooManyAttempts } from "./errors.js";

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
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
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p) || expected.length === 0) return false;
  const key = await scryptAsync(password, salt, N, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

export interface AuthOptions {
  readonly cacheTtlMs?: number;
  readonly maxFailures?: number;
  readonly failureWindowMs?: number;
  readonly lockMs?: number;
  readonly now?: () => number;
}

interface CachedPair {
  readonly accountId: number;
  readonly passwordVersion: number;
  readonly expires: number;
}

/** A cached verification, to be confirmed against the account row (Authenticator.cached). */
export interface CachedCheck {
  readonly pairKey: string;
  readonly username: string;
  readonly accountId: number;
  readonly passwordVersion: number;
}

/** The cache-hit check's read, as a prepared statement on SQLite. */
export const ACCOUNT_BY_ID = "select * from accounts where id = ?";

interface Failures {
  /** Times of the recent failures, oldest first, at most maxFailures. */
  times: number[];
  lockedUntil: number;
}

/** Entries kept in each in-memory table before the oldest are dropped. */
const MAX_ENTRIES = 50_000;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
}

export class Authenticator {
  /** 32 random bytes in base64: a fixed-length prefix, so the hash below is keyed. */
  private readonly cacheKey = randomBytes(32).toString("base64");
  private readonly cache = new Map<string, CachedPair>();
  private readonly failures = new Map<string, Failures>();
  private readonly ttl: number;
  private readonly maxFailures: number;
  private readonly window: number;
  private readonly lockMs: number;
  private readonly now: () => number;
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    options: AuthOptions = {},
  ) {
    this.ttl = Math.min(options.cacheTtlMs ?? 60_000, 60_000);
    this.maxFailures = options.maxFailures ?? 10;
    this.window = options.failureWindowMs ?? 10 * 60_000;
    this.lockMs = options.lockMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * A verification of this pair cached less than the TTL ago, without reading the database: the caller
   * reads the account row itself (in its own transaction), takes it only when `matches` says so, and
   * otherwise calls `drop` and `verify`. Undefined when nothing is cached; throws TooManyAttempts while
   * the user name is locked, as verify does.
   */
  cached(username: string, password: string): CachedCheck | undefined {
    const now = this.now();
    this.checkLock(username.toLowerCase(), now);
    const pairKey = this.pairKey(username, password);
    const cached = this.cache.get(pairKey);
    if (cached === undefined || cached.expires <= now) return undefined;
    return { pairKey, username, accountId: cached.accountId, passwordVersion: cached.passwordVersion };
  }

  /** Whether the account row read for a cached check is still that pair's account. */
  static matches(check: CachedCheck, account: Account | undefined): account is Account {
    // A password changed anywhere (admin CLI, another instance) bumps the version: the pair is stale.
    return account !== undefined && account.password_version === check.passwordVersion && account.username === check.username;
  }

  /** Forgets a cached pair that no longer matches its account. */
  drop(check: CachedCheck): void {
    this.cache.delete(check.pairKey);
  }

  /** The account of a right pair; throws InvalidCredentials or TooManyAttempts otherwise. */
  async verify(username: string, password: string): Promise<Account> {
    const now = this.now();
    const userKey = username.toLowerCase();
    this.checkLock(userKey, now);
    const pairKey = this.pairKey(username, password);
    const cached = this.cache.get(pairKey);
    if (cached !== undefined && cached.expires > now) {
      // On SQLite a prepared statement when no transaction is open (writeSync work, whose log sync may
      // still be in flight, never writes accounts); else Kysely, which waits for the transaction.
      const sqlite = sqliteOf(this.db);
      const read = sqlite?.readNow(() => sqlite.statement(ACCOUNT_BY_ID).get(cached.accountId) as Account | undefined);
      const account =
        read !== undefined ? read.value : await this.db.selectFrom("accounts").selectAll().where("id", "=", cached.accountId).executeTakeFirst();
      if (Authenticator.matches({ pairKey, username, accountId: cached.accountId, passwordVersion: cached.passwordVersion }, account)) {
        return account;
      }
      this.cache.delete(pairKey);
    }
    const account =
      username === "" ? undefined : await this.db.selectFrom("accounts").selectAll().where("username", "=", username).executeTakeFirst();
    // Unknown users and empty credentials cost one scrypt too, so timing tells nothing.
    const ok = await verifyPassword(account?.password_hash ?? (await this.dummy()), password);
    if (account === undefined || !ok || password === "") {
      this.fail(userKey, now);
      throw invalidCredentials();
    }
    this.failures.delete(userKey);
    remember(this.cache, pairKey, { accountId: account.id, passwordVersion: account.password_version, expires: now + this.ttl });
    return account;
  }

  /** Forgets every cached pair (a password change made through this instance). */
  forget(): void {
    this.cache.clear();
  }

  private checkLock(userKey: string, now: number): void {
    const failures = this.failures.get(userKey);
    if (failures !== undefined && failures.lockedUntil > now) {
      throw tooManyAttempts(Math.ceil((failures.lockedUntil - now) / 1000));
    }
  }

  /** A keyed SHA-256 of the pair (the secret key first, at a fixed length): one call, no HMAC object. */
  private pairKey(username: string, password: string): string {
    return hash("sha256", `${this.cacheKey}${username}\0${password}`, "base64");
  }

  private fail(userKey: string, now: number): void {
    const entry = this.failures.get(userKey) ?? { times: [], lockedUntil: 0 };
    entry.times = entry.times.filter((t) => now - t < this.window);
    entry.times.push(now);
    if (entry.times.length >= this.maxFailures) {
      entry.lockedUntil = now + this.lockMs;
      entry.times = [];
    }
    remember(this.failures, userKey, entry);
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(16).toString("base64"));
    return this.dummyHash;
  }
}
