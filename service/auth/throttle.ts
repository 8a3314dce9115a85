// Sign-in throttling, shared by every instance through the database (table auth_throttle, migration
// 0007_auth_throttle). Three kinds of key, each a keyed hash of fixed size (never the raw name or address):
//
//   name    the lower-cased user name: failures from every source that has not signed in as that name
//   source  the caller's address (an IPv6 caller's /64): failures for any name from there
//   pair    (name, source) once that source has signed in as that name: a trusted pair, exempt from the
//           name's and the source's delays (so an attacker elsewhere cannot lock the owner out), with
//           delays of its own for its own failures
//
// Each failure adds one to the counts of its keys; a count forgets one failure per hour. Past a key's free
// failures every failure sets a delay, 1 s doubling to 1024 s, during which the attempts it applies to are
// refused without an scrypt. A successful sign-in makes the pair trusted for 30 days and clears the pair's
// own count (never the name's or the source's: a sign-in to an account of one's own must not buy guesses
// at another's).
//
// Writes: one transaction per failure (an upsert of the keys, one update of their delays, and a prune of at
// most PRUNE_ROWS expired rows) and one per trusted pair made or refreshed (at most one a day per pair).
// Rows expire when their count has decayed to zero (at most MAX_COUNT hours after the last failure) or
// when the trust ends, and are pruned by later writes, so the table holds only recent keys.

import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import type { Transaction } from "kysely";
import { type Store, sqliteOf } from "../db/database.js";
import type { Database } from "../db/schema.js";
import { secretValue } from "../tables/secrets.js";
import {
  ROWS_BY_KEY,
  type ThrottleRow,
  countFailures,
  pruneThrottle,
  setDelays,
  throttleRows,
  trustKey,
} from "../tables/throttle.js";

export type ThrottleKind = "pair" | "name" | "source";

/** Failures a key takes before its first delay. */
export const FREE_FAILURES: Readonly<Record<ThrottleKind, number>> = { pair: 5, name: 10, source: 20 };
export const FIRST_DELAY_MS = 1000;
/** Delays double this many times: the longest is FIRST_DELAY_MS * 2^DOUBLINGS (1024 s). */
const DOUBLINGS = 10;
/** A count forgets one failure per this long without failures. */
export const DECAY_MS = 60 * 60_000;
/** Counts stop growing here (far past every key's longest delay): a row expires within MAX_COUNT hours. */
export const MAX_COUNT = 64;
/** How long a successful sign-in keeps its (name, source) pair trusted. */
export const TRUST_MS = 30 * 24 * 60 * 60_000;
/** A trusted pair's trust is written again only when it is older than this (at most one write a day). */
const TRUST_REFRESH_MS = 24 * 60 * 60_000;
/** Expired rows each write deletes at most (more than it makes, so expired rows never pile up). */
const PRUNE_ROWS = 4;
/** Throttle rows remembered in memory (refusals during a delay then need no database read). */
const MIRROR_ENTRIES = 20_000;
/** A remembered pair row decides trust this long; after that the database is asked again. */
const MIRROR_FRESH_MS = 5_000;

/** The delay a key's `count`-th recent failure sets. */
export function delayAfter(count: number, kind: ThrottleKind): number {
  const over = count - FREE_FAILURES[kind];
  return over <= 0 ? 0 : FIRST_DELAY_MS * 2 ** Math.min(over - 1, DOUBLINGS);
}

export interface ThrottleKeys {
  readonly pair: string;
  readonly name: string;
  readonly source: string;
}

export interface ThrottleRows {
  readonly pair: ThrottleRow | undefined;
  readonly name: ThrottleRow | undefined;
  readonly source: ThrottleRow | undefined;
}

/** Whether the rows say this source has signed in as this name within TRUST_MS. */
export function trusted(rows: Pick<ThrottleRows, "pair">, now: number): boolean {
  return (rows.pair?.trusted_until ?? 0) > now;
}

/**
 * How long an attempt with these rows must still wait (0: it may go on): the pair's own delay, and for an
 * untrusted pair also the name's and the source's.
 */
export function waitMs(rows: ThrottleRows, now: number): number {
  let until = rows.pair?.blocked_until ?? 0;
  if (!trusted(rows, now))
    until = Math.max(until, rows.name?.blocked_until ?? 0, rows.source?.blocked_until ?? 0);
  return Math.max(0, until - now);
}

/**
 * The throttle key of a caller's address: an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 address), an IPv6 address as its /64 (one subscriber's usual allocation), anything else as given
 * (cut at 64 characters: it is hashed, never stored).
 */
export function sourceOf(address: string): string {
  if (address === "") return "unknown";
  if (!address.includes(":")) return address.slice(0, 64);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  const bare = address.split("%", 1)[0]!;
  if (!isIPv6(bare)) return address.slice(0, 64);
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  let groups = bare.split(":");
  const gap = bare.indexOf("::");
  if (gap >= 0) {
    const head = bare.slice(0, gap) === "" ? [] : bare.slice(0, gap).split(":");
    const tail = bare.slice(gap + 2) === "" ? [] : bare.slice(gap + 2).split(":");
    groups = [...head, ...Array<string>(8 - width(head) - width(tail)).fill("0"), ...tail];
  }
  // An embedded IPv4 address is always in the last 32 bits, outside the /64.
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

interface Mirrored {
  readonly row: ThrottleRow | undefined;
  /** When this instance last read or wrote the row. */
  readonly at: number;
}

/** The throttle table through one store, with an in-memory mirror of the rows this instance last saw. */
export class ThrottleStore {
  private readonly mirror = new Map<string, Mirrored>();
  private secret: Promise<string> | undefined;

  constructor(private readonly store: Store) {}

  /** The three keys of an attempt: keyed hashes (secrets.auth_key) of the lower-cased name and the source. */
  async keys(userKey: string, source: string): Promise<ThrottleKeys> {
    const secret = await this.loadSecret();
    const digest = (kind: string, value: string) =>
      kind +
      createHash("sha256")
        .update(`${secret}${kind}\0${value}`)
        .digest()
        .subarray(0, 16)
        .toString("base64url");
    return {
      pair: digest("p", `${userKey}\0${source}`),
      name: digest("n", userKey),
      source: digest("s", source),
    };
  }

  /**
   * The wait this instance already knows of without asking the database: a delay on the pair, or on the
   * name or the source when the pair is known (recently) to be untrusted. 0 when it knows of none.
   */
  knownWait(keys: ThrottleKeys, now: number): number {
    const pair = this.mirror.get(keys.pair);
    if (pair === undefined) return 0;
    if (now - pair.at > MIRROR_FRESH_MS) return Math.max(0, (pair.row?.blocked_until ?? 0) - now);
    return waitMs(
      { pair: pair.row, name: this.mirror.get(keys.name)?.row, source: this.mirror.get(keys.source)?.row },
      now,
    );
  }

  async read(keys: ThrottleKeys, now: number): Promise<ThrottleRows> {
    // On SQLite a prepared statement when no transaction is open (only Store.write transactions write
    // this table, never writeSync work); else Kysely, which waits for the transaction.
    const sqlite = sqliteOf(this.store.db);
    const quick = sqlite?.readNow(
      () => sqlite.statement(ROWS_BY_KEY).all(keys.pair, keys.name, keys.source) as ThrottleRow[],
    );
    const found =
      quick !== undefined
        ? quick.value
        : await throttleRows(this.store.db, [keys.pair, keys.name, keys.source]);
    const byKey = new Map(found.map((row) => [row.key, row]));
    const rows = { pair: byKey.get(keys.pair), name: byKey.get(keys.name), source: byKey.get(keys.source) };
    for (const key of [keys.pair, keys.name, keys.source]) this.remember(key, byKey.get(key), now);
    return rows;
  }

  /**
   * Counts a failed sign-in against the name, the source and (when it exists: a trusted or once-trusted
   * pair) the pair, and sets their delays; one transaction.
   */
  async fail(keys: ThrottleKeys, withPair: boolean, now: number): Promise<void> {
    const counted: [string, ThrottleKind][] = [
      ...(withPair ? [[keys.pair, "pair"] as [string, ThrottleKind]] : []),
      [keys.name, "name"],
      [keys.source, "source"],
    ];
    const rows = await this.store.write(async (trx) => {
      // The count: what is left after one failure forgotten per DECAY_MS, plus this one, at most MAX_COUNT.
      const counts = await countFailures(
        trx,
        counted.map(([key]) => key),
        now,
        DECAY_MS,
        MAX_COUNT,
      );
      // The rows stay locked until the commit (PostgreSQL), so the delays below follow these very counts.
      const delays = counts.map((row) => {
        const kind = counted.find(([key]) => key === row.key)![1];
        const delay = delayAfter(row.failures, kind);
        return {
          key: row.key,
          blocked: delay === 0 ? row.blocked_until : Math.max(row.blocked_until, now + delay),
          expires: Math.max(row.trusted_until, now + row.failures * DECAY_MS),
        };
      });
      const updated = await setDelays(trx, delays);
      await this.prune(trx, now);
      return updated;
    });
    for (const row of rows) this.remember(row.key, row, now);
  }

  /** Makes the pair trusted for TRUST_MS and clears its own failures; one transaction. */
  async trust(pairKey: string, now: number): Promise<void> {
    const until = now + TRUST_MS;
    const row = await this.store.write(async (trx) => {
      const written = await trustKey(trx, pairKey, until);
      await this.prune(trx, now);
      return written;
    });
    this.remember(pairKey, row, now);
  }

  /** Whether a successful sign-in with these rows should write the pair's trust (new, stale, or failures to clear). */
  static needsTrust(pair: ThrottleRow | undefined, now: number): boolean {
    return (
      pair === undefined ||
      pair.failures > 0 ||
      pair.blocked_until > 0 ||
      pair.trusted_until < now + TRUST_MS - TRUST_REFRESH_MS
    );
  }

  /** Forgets what this instance remembers (tests: as another instance would see it). */
  clearMirror(): void {
    this.mirror.clear();
  }

  private async prune(trx: Transaction<Database>, now: number): Promise<void> {
    await pruneThrottle(trx, this.store.engine, now, PRUNE_ROWS);
  }

  private remember(key: string, row: ThrottleRow | undefined, now: number): void {
    this.mirror.delete(key);
    this.mirror.set(key, { row, at: now });
    if (this.mirror.size > MIRROR_ENTRIES) this.mirror.delete(this.mirror.keys().next().value as string);
  }

  private loadSecret(): Promise<string> {
    if (this.secret === undefined) {
      const secret = secretValue(this.store.db, "auth_key");
      this.secret = secret;
      // A failed read is not kept: the next attempt tries again.
      secret.catch(() => (this.secret = undefined));
    }
    return this.secret;
  }
}
