// The queue of file imports (InsertCSVSubscribersWithDemDataFromFileToQueue): `enqueue` checks the URL
// (its shape, and what its host resolves to now: no private, loopback or reserved address) and records a
// queued import; the ImportWorker (service/workers/imports.ts) claims, downloads, stages and applies it.
// Also what the admin CLI shows of an import.

import { promises as dnsPromises } from "node:dns";
import { isIP } from "node:net";
import type { Store } from "../../db/database.js";
import type { Account, Import } from "../../db/schema.js";
import { importUrlRefused } from "../../common/errors.js";
import {
  ImportUrlRefusedError,
  type ResolvedAddress,
  blockedAddressReason,
  checkImportUrl,
  isAllowedHost,
} from "../../common/fetch-guard.js";
import type { ImportQueue } from "../scope.js";
import { importById, insertImport } from "../../tables/imports.js";

/** Resolves a host name to its addresses (as fetch-guard's `lookup` option). */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** Errors kept in `first_errors`. */
export const FIRST_ERRORS_KEPT = 10;
/** Attempts (claims) after which a download that keeps failing without progress marks the import failed. */
export const MAX_ATTEMPTS = 3;
/** A line longer than this (in characters) is a bad row; the rest of it is skipped, never buffered. */
export const MAX_LINE_CHARS = 1 << 20;
/** The longest URL accepted. */
const MAX_URL_CHARS = 2048;

/** One entry of `first_errors`: the file's line (1-based) and why it is not a subscriber row. */
export interface ImportError {
  readonly line: number;
  readonly error: string;
}

async function defaultLookup(host: string): Promise<ResolvedAddress[]> {
  const answers = await dnsPromises.lookup(host, { all: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function bareHost(host: string): string {
  let bare = host.toLowerCase();
  if (bare.startsWith("[") && bare.endsWith("]")) bare = bare.slice(1, -1);
  while (bare.endsWith(".")) bare = bare.slice(0, -1);
  return bare;
}

/**
 * The URL check made when an import is queued: fetch-guard's shape rules ({@link checkImportUrl}), then,
 * for a host name that is not allow-listed, a DNS lookup now, refusing a name that does not resolve or
 * resolves to any private, loopback, link-local, metadata or otherwise reserved address (the rules of
 * fetch-guard's {@link blockedAddressReason}). The worker checks again at download time, also after
 * redirects, and connects only to the addresses it checked: this early check just tells the caller at once.
 * Returns the refusal, or undefined.
 */
async function checkResolvedHost(
  url: string,
  options: { allowHosts: readonly string[]; lookup?: Lookup | undefined },
): Promise<ImportUrlRefusedError | undefined> {
  if (url.length > MAX_URL_CHARS)
    return new ImportUrlRefusedError(`the URL is longer than ${MAX_URL_CHARS} characters`, "invalid-url");
  const refused = checkImportUrl(url, options.allowHosts);
  if (refused !== undefined) return refused;
  const parsed = new URL(url);
  const host = bareHost(parsed.hostname);
  if (isIP(host) !== 0 || isAllowedHost(parsed, options.allowHosts)) return undefined;
  let answers: ResolvedAddress[];
  try {
    answers = await (options.lookup ?? defaultLookup)(host);
  } catch {
    return new ImportUrlRefusedError(`the host ${host} could not be resolved`, "no-host");
  }
  if (answers.length === 0) return new ImportUrlRefusedError(`the host ${host} has no address`, "no-host");
  for (const answer of answers) {
    const why = blockedAddressReason(answer.address);
    if (why !== undefined)
      return new ImportUrlRefusedError(
        `the address ${answer.address} of host ${host} is ${why}`,
        "blocked-address",
      );
  }
  return undefined;
}

/**
 * What the caller is told about any refused import URL: the same words whatever rule refused it, so the
 * answer says nothing about hosts and addresses behind the service.
 */
export const IMPORT_URL_REFUSED =
  "it is not a complete http or https address, has a user name or password, or reaches an address the service may not fetch from";

/** The URL's host for a log line (at most 255 characters), or "" when it is not a URL. */
function hostOf(url: string): string {
  try {
    return bareHost(new URL(url).hostname).slice(0, 255);
  } catch {
    return "";
  }
}

/** The queue as the service and main see it. */
export interface ImportQueueHandle extends ImportQueue {
  /** Tells the listeners registered with {@link onEnqueue} that work is waiting (enqueue calls it). */
  wake(): void;
  /** Registers a listener called after every enqueue (an in-process worker's `wake`); returns the removal. */
  onEnqueue(listener: () => void): () => void;
}

/**
 * The import queue: `enqueue` checks the URL (shape and, for host names, what they resolve to now), throws
 * `ImportUrlRefused` when refused (nothing written), else records a queued import and returns its id.
 * The caller has already checked that the list belongs to the account.
 */
export function createImportQueue(
  store: Store,
  options: {
    allowHosts: readonly string[];
    now?: () => number;
    lookup?: Lookup;
    /** Where a refusal's detail (host, address, rule) goes; the caller only learns that the URL is refused. */
    log?: (entry: Record<string, unknown>) => void;
  },
): ImportQueueHandle {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const listeners = new Set<() => void>();
  const wake = (): void => {
    for (const listener of listeners) listener();
  };
  return {
    async enqueue(account: Account, listId: number, url: string): Promise<number> {
      const refused = await checkResolvedHost(url, {
        allowHosts: options.allowHosts,
        lookup: options.lookup,
      });
      if (refused !== undefined) {
        // The detail names hosts and what they resolve to: an oracle of the internal network for the
        // caller, so it goes to the log only (with the host, never the URL, whose query may hold tokens).
        log({
          event: "import.url_refused",
          account: account.id,
          host: hostOf(url),
          rule: refused.reason,
          detail: refused.message,
        });
        throw importUrlRefused(IMPORT_URL_REFUSED);
      }
      const at = now();
      const id = await insertImport(store.db, account.id, listId, url, at);
      wake();
      return id;
    },
    wake,
    onEnqueue(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** An import as the admin CLI shows it: the row with `first_errors` parsed. */
export type ImportStatus = Omit<Import, "first_errors"> & { first_errors: ImportError[] };

/** The import with that id, or undefined. */
export async function importStatus(store: Store, id: number): Promise<ImportStatus | undefined> {
  const row = await importById(store.db, id);
  if (row === undefined) return undefined;
  return { ...row, first_errors: parseErrors(row.first_errors) };
}

/** `first_errors` as stored (JSON), or none when it does not parse. */
export function parseErrors(text: string): ImportError[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as ImportError[]) : [];
  } catch {
    return [];
  }
}
