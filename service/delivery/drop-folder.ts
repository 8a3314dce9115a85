// The folders the outboxes deliver into (OUTBOX_DIR's `.eml`, SMS_OUTBOX_DIR's `.json`): each file is
// written under a temporary name `<final>.<owner>.tmp` and renamed, so a reader never sees half a file;
// the folder is made 0700 and each file 0600 whatever the umask (they hold subscribers' addresses and
// the links that act for them). A process killed between the write and the rename leaves its temporary
// file behind: a sweep removes temporary files of this naming that are older than a lease, which no live
// writer can still be writing (a writer that slow has lost its claim: its rename fails and the message is
// retried; the next claim writes its own file).

import type { Dir } from "node:fs";
import fs, { type FileHandle } from "node:fs/promises";
import path from "node:path";

/** Folders the service makes for data: owner only. */
const PRIVATE_DIR_MODE = 0o700;
/** Files the service writes with data: owner read/write only. */
const PRIVATE_FILE_MODE = 0o600;

/** Writes `text` as `dir/name` (0600) through `dir/name.<owner>.tmp`, synced before the rename. */
export async function writeAtomically(dir: string, name: string, text: string, owner: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const final = path.join(dir, name);
  const temporary = `${final}.${owner}.tmp`;
  await fs.writeFile(temporary, text, { flush: true, mode: PRIVATE_FILE_MODE });
  await fs.rename(temporary, final);
}

/** One file of a writeDurably batch. */
export interface FolderFile {
  readonly name: string;
  readonly text: string;
}

/** The syncs writeDurably makes; a test may hold them to see that nothing counts as written before. */
export interface FolderSyncs {
  /** fdatasync of one file's temporary copy (default: the handle's datasync). */
  file(handle: FileHandle, name: string): Promise<void>;
  /** fsync of the folder after the renames (default: the folder handle's sync). */
  folder(handle: FileHandle): Promise<void>;
}

const DEFAULT_SYNCS: FolderSyncs = {
  file: (handle) => handle.datasync(),
  folder: (handle) => handle.sync(),
};

/** Files of a batch written at once (each an open, write, fdatasync and close on libuv's thread pool). */
const WRITE_CONCURRENCY = 8;

/**
 * Writes a batch of files into `dir` and returns, per file, undefined once it is durable or its error.
 * Each file goes through `name.<owner>.tmp` (0600): written and fdatasync'ed, renamed to `name`; after
 * every rename of the batch, one fsync of the folder makes the new names durable. So when this resolves,
 * every file reported written is complete under its final name and survives a crash of the machine, not
 * only of the process; a file that failed is left (at most) as its temporary copy, for the sweep. The
 * syncs of the batch's files run WRITE_CONCURRENCY at a time, so the file system can commit them together.
 */
export async function writeDurably(
  dir: string,
  files: readonly FolderFile[],
  owner: string,
  syncs: FolderSyncs = DEFAULT_SYNCS,
): Promise<(Error | undefined)[]> {
  const results: (Error | undefined)[] = files.map(() => undefined);
  if (files.length === 0) return results;
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
  let next = 0;
  const writeOne = async (k: number): Promise<void> => {
    const { name, text } = files[k]!;
    const final = path.join(dir, name);
    const temporary = `${final}.${owner}.tmp`;
    const handle = await fs.open(temporary, "w", PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(text);
      await syncs.file(handle, name);
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, final);
  };
  await Promise.all(
    Array.from({ length: Math.min(WRITE_CONCURRENCY, files.length) }, async () => {
      while (next < files.length) {
        const k = next++;
        await writeOne(k).catch((error: unknown) => (results[k] = asError(error)));
      }
    }),
  );
  if (results.every((result) => result !== undefined)) return results;
  try {
    const folder = await fs.open(dir, "r");
    try {
      await syncs.folder(folder);
    } finally {
      await folder.close();
    }
  } catch (error) {
    // The renames may not be durable: none of the batch counts as written (it is written again).
    return files.map(() => asError(error));
  }
  return results;
}

/** What `sweepTemporaries` may remove: the temporary names one kind of worker writes. */
export interface TemporaryNames {
  /** The final names' pattern before `.<owner>.tmp`, as a regular expression source (`\d+\.eml`). */
  readonly finalName: string;
  /** The owner prefix of that kind of worker (`outbox-`), followed by a UUID. */
  readonly ownerPrefix: string;
}

/** The temporary file name pattern of `names`: `<final>.<prefix><uuid>.tmp`. */
function temporaryPattern(names: TemporaryNames): RegExp {
  return new RegExp(
    `^${names.finalName}\\.${names.ownerPrefix}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$`,
  );
}

/**
 * Removes the temporary files of `names` in `dir` last modified before `olderThan` (epoch ms), except
 * `ownOwner`'s; a missing folder has none. Reads the folder as a stream (bounded memory however many
 * files it holds). Returns the names removed.
 */
export async function sweepTemporaries(
  dir: string,
  names: TemporaryNames,
  ownOwner: string,
  olderThan: number,
): Promise<string[]> {
  const pattern = temporaryPattern(names);
  const removed: string[] = [];
  let folder: Dir;
  try {
    folder = await fs.opendir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return removed;
    throw error;
  }
  for await (const entry of folder) {
    if (!entry.isFile() || !pattern.test(entry.name) || entry.name.includes(`.${ownOwner}.`)) continue;
    const file = path.join(dir, entry.name);
    try {
      const stat = await fs.stat(file);
      if (stat.mtimeMs >= olderThan) continue;
      await fs.unlink(file);
      removed.push(entry.name);
    } catch (error) {
      // renamed or removed meanwhile (its writer finished, or another instance swept it)
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return removed;
}

/**
 * Runs `sweepTemporaries` for a worker: at its first pass and then at most every `everyMs`, with files
 * older than `staleMs` (the lease) counted as left by a dead writer.
 */
export class TemporarySweep {
  private last: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly names: TemporaryNames,
    private readonly owner: string,
    private readonly staleMs: number,
    private readonly everyMs = 10 * 60_000,
    private readonly log?: (entry: Record<string, unknown>) => void,
  ) {}

  /** Sweeps when due at `now`; a failure is logged, never thrown (delivery goes on). */
  async maybe(now: number): Promise<void> {
    if (this.last !== undefined && now - this.last < this.everyMs) return;
    this.last = now;
    try {
      const removed = await sweepTemporaries(this.dir, this.names, this.owner, now - this.staleMs);
      if (removed.length > 0)
        this.log?.({
          msg: "removed temporary files left by a stopped writer",
          dir: this.dir,
          files: removed.length,
        });
    } catch (error) {
      this.log?.({
        msg: "temporary file sweep failed",
        dir: this.dir,
        err: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
