// The folders the outboxes deliver into (OUTBOX_DIR's `.eml`, SMS_OUTBOX_DIR's `.json`): each file is
// written under a temporary name `<final>.<owner>.tmp` and renamed, so a reader never sees half a file;
// the folder is made 0700 and each file 0600 whatever the umask (they hold subscribers' addresses and
// the links that act for them). A process killed between the write and the rename leaves its temporary
// file behind: a sweep removes temporary files of this naming that are older than a lease, which no live
// writer can still be writing (a writer that slow has lost its claim: its rename fails and the message is
// retried; the next claim writes its own file).

import type { Dir } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** Folders the service makes for data: owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Files the service writes with data: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

/** Writes `text` as `dir/name` (0600) through `dir/name.<owner>.tmp`, synced before the rename. */
export async function writeAtomically(dir: string, name: string, text: string, owner: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const final = path.join(dir, name);
  const temporary = `${final}.${owner}.tmp`;
  await fs.writeFile(temporary, text, { flush: true, mode: PRIVATE_FILE_MODE });
  await fs.rename(temporary, final);
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
