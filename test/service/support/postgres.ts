/**
 * A throwaway PostgreSQL cluster for the service tests: initdb into a fresh temporary directory, start it
 * on a free loopback port, create one database per test suite, stop it and delete the directory.
 *
 * Nothing here touches a system cluster: the data directory, the unix socket and the log live in the
 * temporary directory, and the server listens on 127.0.0.1 only.
 *
 * Running as root (CI runs `.ci/run` as root): initdb and pg_ctl refuse to run as root, so they run as
 * an ordinary user through node's spawn `uid`/`gid` options (no runuser/su and no shell quoting). The
 * user is `$PG_OS_USER` if set, else `postgres` (Debian's `postgresql` package creates it), else
 * `nobody`. We never create OS users from a test run: `nobody` exists on every Linux system and owns
 * nothing else of ours but this temporary directory, which is deleted on stop.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import pg from "pg";

/** Where the PostgreSQL server binaries were looked for, and what was found. */
export interface PostgresBinSearch {
  /** A directory holding `initdb` and `pg_ctl`, or undefined when none was found. */
  bin?: string;
  /** Why nothing was found (the places tried), when `bin` is undefined. */
  reason?: string;
}

/** A running throwaway cluster. */
export interface ThrowawayCluster {
  /** URL of the cluster's `postgres` database, as superuser `postgres` (trust auth, loopback only). */
  url: string;
  /** Same as `url`: the database to connect to for CREATE DATABASE. */
  adminUrl: string;
  /** The data directory's parent (holds `data/`, the socket and `server.log`). */
  dir: string;
  /** Milliseconds from mkdtemp to the first successful connection. */
  startupMs: number;
  /** `pg_ctl stop -m immediate`, then delete the directory. Safe to call more than once. */
  stop(): Promise<void>;
  /** Synchronous `stop()`, for process exit hooks. */
  stopSync(): void;
  /** CREATE DATABASE `name` (must match {@link DATABASE_NAME}); resolves to its URL. */
  createDatabase(name: string): Promise<string>;
}

export interface ClusterOptions {
  /**
   * PostgreSQL's durable defaults (fsync, full_page_writes and synchronous_commit on, stated explicitly so a
   * changed default cannot turn them off): every commit waits for its WAL flush. Default false: all three
   * off, for speed in tests that never crash the server.
   */
  readonly durable?: boolean;
}

/** The settings of a durable cluster (ClusterOptions.durable), as `postgres -c` options. */
const DURABLE_SETTINGS = "-c fsync=on -c full_page_writes=on -c synchronous_commit=on";

/** Database names accepted by {@link createDatabase}: lower-case identifiers, no quoting needed. */
export const DATABASE_NAME = /^[a-z_][a-z0-9_]*$/;

const REQUIRED = ["initdb", "pg_ctl"];

function hasServerBinaries(dir: string): boolean {
  return REQUIRED.every((name) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function versionKey(name: string): number[] {
  return name.split(".").map((part) => Number.parseInt(part, 10) || 0);
}

function compareVersionsDesc(a: string, b: string): number {
  const ka = versionKey(a);
  const kb = versionKey(b);
  for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
    const d = (kb[i] ?? 0) - (ka[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Looks for the PostgreSQL server binaries (a directory with `initdb` and `pg_ctl`), in order:
 * `$PG_BIN` (when set it is the only place looked at), `pg_config --bindir`, the newest
 * `/usr/lib/postgresql/<version>/bin` (Debian's layout, not on PATH), then PATH.
 */
export function searchPostgresBin(): PostgresBinSearch {
  const explicit = process.env.PG_BIN;
  if (explicit !== undefined && explicit !== "") {
    return hasServerBinaries(explicit)
      ? { bin: explicit }
      : { reason: `PG_BIN=${explicit} has no executable ${REQUIRED.join(" and ")}` };
  }
  const tried: string[] = [];
  try {
    const out = execFileSync("pg_config", ["--bindir"], {
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const dir = out.trim();
    if (dir !== "" && hasServerBinaries(dir)) return { bin: dir };
    tried.push(`pg_config --bindir (${dir})`);
  } catch {
    tried.push("pg_config (not found)");
  }
  const debianRoot = "/usr/lib/postgresql";
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((v) => /^\d+(\.\d+)*$/.test(v))
      .sort(compareVersionsDesc);
    for (const v of versions) {
      const dir = join(debianRoot, v, "bin");
      if (hasServerBinaries(dir)) return { bin: dir };
    }
  }
  tried.push(`${debianRoot}/*/bin`);
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && hasServerBinaries(dir)) {
      // A symlink farm such as /usr/local/bin works too, but report the real directory.
      return { bin: dirname(realpathSync(join(dir, "initdb"))) };
    }
  }
  tried.push("PATH");
  return {
    reason: `no initdb and pg_ctl found (tried ${tried.join(", ")}); install PostgreSQL or set PG_BIN`,
  };
}

/** The directory holding `initdb` and `pg_ctl`, or undefined (see {@link searchPostgresBin}). */
export function findPostgresBin(): string | undefined {
  return searchPostgresBin().bin;
}

/** A free TCP port on 127.0.0.1 (bound, read, closed; a small race with other processes remains). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

interface RunAs {
  uid: number;
  gid: number;
  user: string;
}

/** When running as root, the non-root user to run initdb/pg_ctl as (see the module comment). */
function runAsUser(): RunAs | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const candidates = process.env.PG_OS_USER ? [process.env.PG_OS_USER] : ["postgres", "nobody"];
  for (const user of candidates) {
    try {
      const uid = Number(
        execFileSync("id", ["-u", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(),
      );
      const gid = Number(
        execFileSync("id", ["-g", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(),
      );
      if (Number.isInteger(uid) && uid > 0 && Number.isInteger(gid)) return { uid, gid, user };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error(
    `running as root and none of the users ${candidates.join(", ")} exists to run PostgreSQL as`,
  );
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: "C", LC_ALL: "C" };
  for (const key of Object.keys(env)) if (key.startsWith("PG")) delete env[key];
  return env;
}

/** Runs a PostgreSQL binary (as `runAs` when given) to completion; rejects with its output on failure. */
function run(
  file: string,
  args: string[],
  cwd: string,
  runAs: RunAs | undefined,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(
          new Error(`${file} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`),
        );
    });
  });
}

function runSync(
  file: string,
  args: string[],
  cwd: string,
  runAs: RunAs | undefined,
  timeoutMs: number,
): void {
  execFileSync(file, args, {
    cwd,
    env: childEnv(),
    stdio: "ignore",
    timeout: timeoutMs,
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
}

/** Replaces the database of a `postgres://` URL. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * CREATE DATABASE `name` on the cluster that `adminUrl` points at; resolves to the new database's URL.
 * `name` must match {@link DATABASE_NAME}, so it is safe as an unquoted identifier.
 */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!DATABASE_NAME.test(name) || name.length > 63)
    throw new Error(`invalid database name ${JSON.stringify(name)}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

async function waitUntilAccepting(url: string, attempts: number, delayMs: number): Promise<void> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch (err) {
      last = err;
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
  throw new Error(`PostgreSQL did not accept connections at ${url}: ${String(last)}`);
}

/**
 * Starts a throwaway cluster with the binaries in `bin` (default {@link findPostgresBin}); rejects with
 * initdb's/pg_ctl's output when it cannot. The caller must `stop()` it.
 */
export async function startThrowawayCluster(
  bin: string | undefined = findPostgresBin(),
  options: ClusterOptions = {},
): Promise<ThrowawayCluster> {
  if (bin === undefined) throw new Error(searchPostgresBin().reason ?? "PostgreSQL not found");
  const started = performance.now();
  const runAs = runAsUser();
  const dir = mkdtempSync(join(tmpdir(), "pgtest-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const pgCtl = join(bin, "pg_ctl");
  let stopped = false;
  let port = 0;

  const stopSync = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, "postmaster.pid")))
        runSync(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"], dir, runAs, 40_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, "postmaster.pid")))
        await run(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"], dir, runAs, 40_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  try {
    // pg_ctl hands -o to /bin/sh; the socket directory is single-quoted there.
    if (dir.includes("'")) throw new Error(`temporary directory ${dir} contains a single quote`);
    if (runAs) {
      chownSync(dir, runAs.uid, runAs.gid);
      try {
        runSync("test", ["-w", dir, "-a", "-x", dir], dir, runAs, 10_000);
      } catch {
        throw new Error(`${dir} is not writable by ${runAs.user} (is TMPDIR=${tmpdir()} traversable by it?)`);
      }
    }
    await run(
      join(bin, "initdb"),
      ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"],
      dir,
      runAs,
      120_000,
    );
    // A throwaway cluster: durability is worthless to the tests, so fsync, full page writes and synchronous
    // commit are off (much faster, and a crash only loses data the run deletes anyway). The bench and the
    // crash tests ask for PostgreSQL's durable defaults instead (options.durable).
    const maxAttempts = 3; // the free port can be taken between freePort() and the bind: retry a few times
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const settings = options.durable
        ? [`-h 127.0.0.1 -p ${port} -k '${dir}'`, `${DURABLE_SETTINGS} -c max_connections=200`]
        : [
            `-h 127.0.0.1 -p ${port} -k '${dir}' -F`,
            "-c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=200",
          ];
      try {
        await run(
          pgCtl,
          ["start", "-D", data, "-l", log, "-w", "-t", "60", "-o", settings.join(" ")],
          dir,
          runAs,
          90_000,
        );
        break;
      } catch (err) {
        if (attempt >= maxAttempts) throw err;
      }
    }
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitUntilAccepting(adminUrl, 50, 100);
    return {
      url: adminUrl,
      adminUrl,
      dir,
      startupMs: Math.round(performance.now() - started),
      stop,
      stopSync,
      createDatabase: (name: string) => createDatabase(adminUrl, name),
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
