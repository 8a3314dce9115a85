/**
 * The queued file import (service/workers/imports.ts) on both engines: the queue's URL checks, the worker's
 * parsing and counts, streaming, failures and retries, and its durability: a worker stopped, robbed of
 * its lease, or killed with SIGKILL mid-import leaves the import at its last committed batch, and the next
 * worker ends with exactly the rows of an uninterrupted run. Files are served from 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { ServiceError } from "../../generated/server.js";
import { type Store, openStore } from "../../service/db/database.js";
import type { Account } from "../../service/db/schema.js";
import { MAX_BATCH_CHARS, ImportWorker, type ImportWorkerOptions } from "../../service/workers/imports.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.ts";
import { FIRST_ERRORS_KEPT } from "../../service/operations/subscriber/import-queue.js";
import { IMPORT_URL_REFUSED } from "../../service/operations/subscriber/import-queue.js";
import type { Lookup } from "../../service/operations/subscriber/import-queue.js";
import { createImportQueue } from "../../service/operations/subscriber/import-queue.js";
import { importStatus } from "../../service/operations/subscriber/import-queue.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHILD = "test/service/fixtures/worker.ts";
const ALLOW = ["127.0.0.1"];

// ---------------------------------------------------------------------------------------------------------
// Files served from 127.0.0.1

type Route = (req: IncomingMessage, res: ServerResponse, hit: number) => unknown;

interface FileServer {
  base: string;
  routes: Map<string, Route>;
  /** Requests per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startFileServer(): Promise<FileServer> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    const route = routes.get(path);
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    void Promise.resolve(route(req, res, hit)).catch(() => res.destroy());
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    routes,
    hits,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A static file server's validators for `body`: a strong ETag of its digest and a Last-Modified. */
function versionOf(body: Buffer): Record<string, string> {
  return {
    etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`,
    "last-modified": "Tue, 01 Dec 2026 10:00:00 GMT",
  };
}

/** Sends `body` in chunks of `chunkBytes`, `delayMs` apart (with its validators); stops when the client goes away. */
async function sendSlowly(
  res: ServerResponse,
  body: Buffer,
  chunkBytes: number,
  delayMs: number,
  headers: Record<string, string> = versionOf(body),
): Promise<void> {
  res.writeHead(200, { "content-type": "text/plain", ...headers });
  for (let at = 0; at < body.length && !res.destroyed; at += chunkBytes) {
    res.write(body.subarray(at, at + chunkBytes));
    await sleep(delayMs);
  }
  res.end();
}

const whole =
  (body: Buffer, headers: Record<string, string> = versionOf(body)): Route =>
  (_req, res) =>
    res.writeHead(200, { "content-type": "text/plain", ...headers }).end(body);

// ---------------------------------------------------------------------------------------------------------
// Generated files and what they must leave behind

/** Row i of a generated file: a distinct address, a name, alternating formats and one or two DD fields. */
function genLine(prefix: string, i: number): string {
  return `${prefix}${i}@example.com;Name ${i};${i % 2 === 0 ? "HTML" : "Text"};${i % 10}${i % 3 === 0 ? `;dd2-${i}` : ""}`;
}

function genFile(prefix: string, n: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(genLine(prefix, i));
  return Buffer.from(`${lines.join("\n")}\n`);
}

/** A digest of (email, name, format, fields) over the rows, sorted by e-mail (in JS: no collation). */
function digest(rows: { email: string; name: string; format: string; fields: string }[]): string {
  const lines = rows.map((r) => `${r.email}\t${r.name}\t${r.format}\t${r.fields}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

function expectedDigest(prefix: string, n: number): string {
  const rows = [];
  for (let i = 0; i < n; i++) {
    const fields: Record<string, string> = { "1": String(i % 10) };
    if (i % 3 === 0) fields["2"] = `dd2-${i}`;
    rows.push({
      email: `${prefix}${i}@example.com`,
      name: `Name ${i}`,
      format: i % 2 === 0 ? "HTML" : "Text",
      fields: JSON.stringify(fields),
    });
  }
  return digest(rows);
}

async function count(
  store: Store,
  table: "subscribers" | "memberships",
  where: { account_id?: number; list_id?: number },
): Promise<number> {
  let q = store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"));
  if (where.account_id !== undefined) q = q.where("account_id", "=", where.account_id);
  if (where.list_id !== undefined) q = q.where("list_id", "=", where.list_id);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** Exactly the n generated subscribers, each an active member of the list, no other subscriber. */
async function expectExactlyGenerated(
  store: Store,
  account: Account,
  listId: number,
  prefix: string,
  n: number,
): Promise<void> {
  expect(await count(store, "subscribers", { account_id: account.id })).toBe(n);
  expect(await count(store, "memberships", { list_id: listId })).toBe(n);
  const rows = await store.db
    .selectFrom("subscribers")
    .innerJoin("memberships", "memberships.subscriber_id", "subscribers.id")
    .select([
      "subscribers.email",
      "subscribers.name",
      "subscribers.format",
      "subscribers.fields",
      "memberships.state",
    ])
    .where("memberships.list_id", "=", listId)
    .where("subscribers.account_id", "=", account.id)
    .execute();
  expect(rows.length).toBe(n);
  expect(rows.every((r) => r.state === "active")).toBe(true);
  expect(new Set(rows.map((r) => r.email.toLowerCase())).size).toBe(n);
  expect(digest(rows)).toBe(expectedDigest(prefix, n));
}

/** Polls until `check` is true (at most `ms`), failing with `what`. */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Rows of the import staged and not applied yet. */
async function staged(store: Store, id: number): Promise<number> {
  const batches = await store.db
    .selectFrom("import_batches")
    .select("rows")
    .where("import_id", "=", id)
    .execute();
  return batches.reduce((n, b) => n + (JSON.parse(b.rows) as unknown[]).length, 0);
}

async function row(store: Store, id: number) {
  const status = await importStatus(store, id);
  if (status === undefined) throw new Error(`import ${id} missing`);
  return status;
}

// ---------------------------------------------------------------------------------------------------------

describeEngines("queued file imports", (engine) => {
  let files: FileServer;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    files = await startFileServer();
  });
  afterAll(async () => {
    await files.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    files.routes.clear();
    files.hits.clear();
  });

  /** A fresh database with one account (25 DD fields) and one list. */
  async function fresh(
    label: string,
  ): Promise<{ url: string; store: Store; account: Account; listId: number }> {
    const url = await freshDatabaseUrl(engine, `imports_${label}`);
    const store = await openStore(url);
    cleanups.push(() => store.close());
    return { url, store, ...(await addAccount(store, label)) };
  }

  /** Another account (25 DD fields) with one list in the same database. */
  async function addAccount(store: Store, label: string): Promise<{ account: Account; listId: number }> {
    const now = Date.now();
    const { id } = await store.db
      .insertInto("accounts")
      .values({ username: `user-${label}`, password_hash: "not-a-hash", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const account = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const list = await store.db
      .insertInto("mailing_lists")
      .values({ account_id: id, name: "Main", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { account, listId: list.id };
  }

  function worker(
    store: Store,
    options: Partial<ImportWorkerOptions> = {},
    logs?: Record<string, unknown>[],
  ): ImportWorker {
    const w = new ImportWorker(store, {
      allowHosts: ALLOW,
      leaseMs: 2_000,
      pollMs: 20,
      retryBackoffMs: 20,
      log: (entry) => logs?.push(entry),
      ...options,
    });
    cleanups.push(() => w.stop());
    return w;
  }

  async function untilFinished(store: Store, id: number, ms = 30_000) {
    await waitFor(
      `import ${id} to finish`,
      async () => ["done", "failed"].includes((await row(store, id)).state),
      ms,
    );
    return row(store, id);
  }

  // -------------------------------------------------------------------------------------------------------

  it.each([1000, 2])(
    "imports a small file (batches of %i lines): rows, memberships, counts, bad lines, opt-outs",
    async (batchRows) => {
      const { store, account, listId } = await fresh(`small_${batchRows}`);
      const now = Date.now();
      await store.db
        .insertInto("optouts")
        .values({ account_id: account.id, email_key: "optout@example.com", created_at: now })
        .execute();
      await store.db
        .insertInto("subscribers")
        .values({
          account_id: account.id,
          email: "Old@Example.com",
          email_key: "old@example.com",
          name: "Old",
          fields: '{"1":"keep"}',
          created_at: now,
        })
        .execute();
      const tooMany = Array.from({ length: 26 }, (_, i) => `v${i + 1}`).join(";");
      const lines = [
        "\uFEFFa@example.com;Alice;HTML;x1", // 1: BOM stripped
        "b@example.com;Bob;Text\r", // 2: CRLF
        "", // 3: blank: a line, not a row
        "not-an-email;X;HTML", // 4: bad
        "c@example.com;Carol;Pdf", // 5: bad format
        "optout@example.com;Opt;HTML", // 6: opted out: skipped
        "old@example.com;;HTML;;new2", // 7: existing: name kept, DD2 added
        "d@example.com;Dee", // 8: too few fields
        `e@example.com;E;HTML;${tooMany}`, // 9: DD26 not activated (25)
        "a@example.com;Alice Again;HTML", // 10: same address again: last one wins, counted again
        'f@example.com;"Quoted; Name";HTML', // 11: no quoting: the ; splits, the format is wrong
        "g@example.com;G;HTML", // 12: no line break at the end
      ];
      files.routes.set("/small.csv", whole(Buffer.from(lines.join("\n"))));
      const queue = createImportQueue(store, { allowHosts: ALLOW });
      const id = await queue.enqueue(account, listId, `${files.base}/small.csv`);
      expect((await row(store, id)).state).toBe("queued");

      const w = worker(store, { batchRows });
      queue.onEnqueue(() => w.wake());
      w.start();
      const done = await untilFinished(store, id);

      expect(done.state).toBe("done");
      expect(done.error).toBeNull();
      expect(done.finished_at).toBeTypeOf("number");
      expect(done.lease_owner).toBeNull();
      expect(done.attempts).toBe(1);
      expect(done.lines_done).toBe(12);
      expect(done.rows_imported).toBe(5); // a, b, old, a again, g
      expect(done.rows_skipped).toBe(1);
      expect(done.rows_bad).toBe(5);
      expect(done.first_errors.map((e) => e.line)).toEqual([4, 5, 8, 9, 11]);
      for (const e of done.first_errors) expect(e.error).not.toBe("");
      expect(done.first_errors.find((e) => e.line === 9)?.error).toContain("DD26");

      const subs = await store.db
        .selectFrom("subscribers")
        .selectAll()
        .where("account_id", "=", account.id)
        .orderBy("email_key")
        .execute();
      expect(subs.map((s) => s.email_key)).toEqual([
        "a@example.com",
        "b@example.com",
        "g@example.com",
        "old@example.com",
      ]);
      const by = new Map(subs.map((s) => [s.email_key, s]));
      expect(by.get("a@example.com")).toMatchObject({
        name: "Alice Again",
        format: "HTML",
        fields: '{"1":"x1"}',
      });
      expect(by.get("b@example.com")).toMatchObject({ name: "Bob", format: "Text" });
      expect(by.get("old@example.com")).toMatchObject({
        email: "Old@Example.com",
        name: "Old",
        fields: '{"1":"keep","2":"new2"}',
      });
      const members = await store.db
        .selectFrom("memberships")
        .select(["subscriber_id", "state"])
        .where("list_id", "=", listId)
        .execute();
      expect(members.length).toBe(4);
      expect(members.every((m) => m.state === "active")).toBe(true);
    },
  );

  it("keeps only the first errors, with their line numbers", async () => {
    const { store, account, listId } = await fresh("first_errors");
    const lines = Array.from({ length: 13 }, (_, i) => `bad${i};X;Nope`);
    lines.splice(5, 0, "ok@example.com;OK;HTML");
    files.routes.set("/bad.csv", whole(Buffer.from(`${lines.join("\r\n")}\r\n`)));
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/bad.csv`,
    );
    worker(store, { batchRows: 4 }).start();
    const done = await untilFinished(store, id);
    expect(done).toMatchObject({
      state: "done",
      lines_done: 14,
      rows_imported: 1,
      rows_bad: 13,
      rows_skipped: 0,
    });
    expect(done.first_errors.map((e) => e.line)).toEqual(
      [1, 2, 3, 4, 5, 7, 8, 9, 10, 11].slice(0, FIRST_ERRORS_KEPT),
    );
  });

  it("refuses private, loopback, non-http and privately resolving URLs at enqueue, writing nothing", async () => {
    const { store, account, listId } = await fresh("refuse");
    const lookup: Lookup = async (host) => {
      if (host === "files.test") return [{ address: "127.0.0.1", family: 4 }];
      if (host === "mixed.test")
        return [
          { address: "93.184.215.14", family: 4 },
          { address: "fd00::1", family: 6 },
        ];
      if (host === "public.test") return [{ address: "93.184.215.14", family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    const logs: Record<string, unknown>[] = [];
    const queue = createImportQueue(store, { allowHosts: ALLOW, lookup, log: (entry) => logs.push(entry) });
    const refusedUrls = [
      "http://10.0.0.1/x",
      "http://localhost/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest/meta-data",
      "ftp://example.com/x",
      "file:///etc/passwd",
      "http://user:pw@public.test/x",
      "not a url",
      "http://files.test/x",
      "http://mixed.test/x",
      "http://nowhere.test/x",
      `http://public.test/${"a".repeat(3000)}`,
    ];
    const messages = new Set<string>();
    for (const url of refusedUrls) {
      const error = await queue.enqueue(account, listId, url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code, url).toBe("ImportUrlRefused");
      expect((error as ServiceError).parameter).toBe("strCSVUrl");
      messages.add((error as ServiceError).message);
    }
    // One text for every refusal: the caller learns nothing of hosts, addresses or which rule refused.
    expect([...messages]).toEqual([`strCSVUrl is refused: ${IMPORT_URL_REFUSED}.`]);
    for (const hint of ["127.0.0.1", "files.test", "fd00", "loopback", "private", "resolve", "10.0.0.1"]) {
      expect(IMPORT_URL_REFUSED).not.toContain(hint);
    }
    // The log has the detail (host, address, rule), one line per refusal, never the whole URL.
    const refusals = logs.filter((e) => e.event === "import.url_refused");
    expect(refusals.length).toBe(refusedUrls.length);
    expect(refusals.find((e) => e.host === "files.test")).toMatchObject({
      account: account.id,
      rule: "blocked-address",
    });
    expect(String(refusals.find((e) => e.host === "files.test")?.detail)).toContain("127.0.0.1");
    expect(String(refusals.find((e) => e.host === "mixed.test")?.detail)).toContain("fd00::1");
    expect(refusals.find((e) => e.host === "nowhere.test")).toMatchObject({ rule: "no-host" });
    expect(JSON.stringify(refusals)).not.toContain("a".repeat(100));
    expect(await store.db.selectFrom("imports").selectAll().execute()).toEqual([]);

    // Allowed: a public address, the allow-listed loopback address, and an allow-listed host name.
    const ids = [
      await queue.enqueue(account, listId, "http://public.test/x.csv"),
      await queue.enqueue(account, listId, `${files.base}/x.csv`),
      await createImportQueue(store, { allowHosts: ["files.test"], lookup }).enqueue(
        account,
        listId,
        "http://files.test/x.csv",
      ),
    ];
    const rows = await store.db.selectFrom("imports").selectAll().orderBy("id").execute();
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => [r.state, r.account_id, r.list_id, r.attempts])).toEqual(
      ids.map(() => ["queued", account.id, listId, 0]),
    );
  });

  it("streams: the first batch is committed before the rest of the file is sent", async () => {
    const { store, account, listId } = await fresh("stream");
    const body = genFile("s", 2000);
    const half = body.indexOf("\n", body.length / 2) + 1;
    let sawProgress = false;
    files.routes.set("/stream.csv", async (_req, res) => {
      res.writeHead(200);
      res.write(body.subarray(0, half));
      // Hold the rest back until a batch from the first half is committed.
      await waitFor("a committed batch", async () => (await row(store, id)).lines_done > 0, 20_000);
      sawProgress = true;
      res.end(body.subarray(half));
    });
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/stream.csv`,
    );
    worker(store, { batchRows: 100 }).start();
    const done = await untilFinished(store, id);
    expect(sawProgress).toBe(true);
    expect(done).toMatchObject({ state: "done", lines_done: 2000, rows_imported: 2000 });
    await expectExactlyGenerated(store, account, listId, "s", 2000);
  });

  it("commits a batch once its lines reach MAX_BATCH_CHARS, however few they are (memory per import is bounded)", async () => {
    const { store, account, listId } = await fresh("batch_chars");
    const long = `${"x".repeat(400_000)}\n`; // a bad line: no fields
    const lines = Math.ceil(MAX_BATCH_CHARS / 400_000) + 1;
    let sawProgress = false;
    files.routes.set("/long.csv", async (_req, res) => {
      res.writeHead(200);
      res.write(long.repeat(lines));
      // Hold the rest back until a batch of the long lines is committed (batchRows is 1000).
      await waitFor("a committed batch", async () => (await row(store, id)).lines_done > 0, 20_000);
      sawProgress = true;
      res.end("a@example.com;A;HTML\n");
    });
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/long.csv`,
    );
    worker(store).start();
    const done = await untilFinished(store, id);
    expect(sawProgress).toBe(true);
    expect(done).toMatchObject({ state: "done", lines_done: lines + 1, rows_bad: lines, rows_imported: 1 });
  });

  it("a download that stalls longer than the lease keeps it (heartbeat): a second worker does not take over", async () => {
    const { store, account, listId } = await fresh("heartbeat");
    const body = genFile("h", 1000);
    const half = body.indexOf("\n", body.length / 2) + 1;
    files.routes.set("/stall.csv", async (_req, res) => {
      res.writeHead(200);
      res.write(body.subarray(0, half));
      await sleep(1500); // five lease periods without a byte
      res.end(body.subarray(half));
    });
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/stall.csv`,
    );
    const logs: Record<string, unknown>[] = [];
    worker(store, { batchRows: 100, leaseMs: 300, workerId: "first" }, logs).start();
    await waitFor("the first worker's claim", () => logs.some((e) => e.event === "import.claimed"));
    worker(store, { batchRows: 100, leaseMs: 300, workerId: "second" }, logs).start();
    const done = await untilFinished(store, id, 10_000);
    expect(done).toMatchObject({ state: "done", attempts: 1, lines_done: 1000, rows_imported: 1000 });
    expect(logs.filter((e) => e.event === "import.claimed").map((e) => e.worker)).toEqual(["first"]);
    expect(files.hits.get("/stall.csv")).toBe(1);
    await expectExactlyGenerated(store, account, listId, "h", 1000);
  });

  it("fails at once when the download is refused after a redirect; nothing is written", async () => {
    const { store, account, listId } = await fresh("redirect");
    files.routes.set("/moved.csv", (_req, res) =>
      res.writeHead(302, { location: "http://10.0.0.1/secret" }).end(),
    );
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/moved.csv`,
    );
    worker(store).start();
    const done = await untilFinished(store, id);
    expect(done).toMatchObject({ state: "failed", attempts: 1, lines_done: 0, rows_imported: 0 });
    expect(done.error).toMatch(/refused.*10\.0\.0\.1/);
    expect(files.hits.get("/moved.csv")).toBe(1);
    expect(await count(store, "subscribers", { account_id: account.id })).toBe(0);
  });

  it("retries a failing download with backoff, then fails after 3 attempts; a 404 fails at once", async () => {
    const { store, account, listId } = await fresh("retry");
    files.routes.set("/flaky.csv", (_req, res) => res.writeHead(503).end());
    const queue = createImportQueue(store, { allowHosts: ALLOW });
    const flaky = await queue.enqueue(account, listId, `${files.base}/flaky.csv`);
    const missing = await queue.enqueue(account, listId, `${files.base}/missing.csv`);
    worker(store, { retryBackoffMs: 50 }).start();
    const failed = await untilFinished(store, flaky);
    expect(failed).toMatchObject({ state: "failed", attempts: 3 });
    expect(failed.error).toContain("503");
    expect(files.hits.get("/flaky.csv")).toBe(3);
    const gone = await untilFinished(store, missing);
    expect(gone).toMatchObject({ state: "failed", attempts: 1 });
    expect(gone.error).toContain("404");
  });

  it("recovers when a retry succeeds, and fails an import whose list vanished", async () => {
    const { store, account, listId } = await fresh("recover");
    files.routes.set("/once.csv", (req, res, hit) =>
      hit === 1 ? res.writeHead(500).end() : whole(genFile("r", 50))(req, res, hit),
    );
    const queue = createImportQueue(store, { allowHosts: ALLOW });
    const id = await queue.enqueue(account, listId, `${files.base}/once.csv`);
    const other = await store.db
      .insertInto("mailing_lists")
      .values({ account_id: account.id, name: "Doomed", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const orphan = await queue.enqueue(account, other.id, `${files.base}/once.csv`);
    await store.db.deleteFrom("mailing_lists").where("id", "=", other.id).execute();
    worker(store).start();
    const done = await untilFinished(store, id);
    expect(done).toMatchObject({ state: "done", attempts: 2, rows_imported: 50, error: null });
    await expectExactlyGenerated(store, account, listId, "r", 50);
    const failed = await untilFinished(store, orphan);
    expect(failed).toMatchObject({ state: "failed", rows_imported: 0 });
    expect(failed.error).toContain("list");
  });

  it("a stopped worker leaves whole batches; the next worker finishes with exactly the rows", async () => {
    const { store, account, listId } = await fresh("stop");
    const n = 10_000;
    const body = genFile("p", n);
    files.routes.set("/stop.csv", (req, res, hit) =>
      hit === 1 ? sendSlowly(res, body, 4096, 15) : whole(body)(req, res, hit),
    );
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/stop.csv`,
    );
    const first = worker(store, { batchRows: 200 });
    first.start();
    await waitFor("progress", async () => (await row(store, id)).lines_done >= 1000);
    await first.stop();
    const stopped = await row(store, id);
    expect(stopped.state).toBe("importing");
    expect(stopped.lease_owner).toBeNull();
    expect(stopped.lease_until).toBeNull();
    expect(stopped.lines_done).toBeLessThan(n);
    expect(stopped.lines_done % 200).toBe(0);
    // Each batch is one transaction: the rows staged are exactly the lines counted, and none is applied
    // before the whole file is staged.
    expect(await staged(store, id)).toBe(stopped.lines_done);
    expect(await count(store, "memberships", { list_id: listId })).toBe(0);
    expect(stopped.rows_imported).toBe(0);
    // A stop gives the claim back: it is not a failed attempt.
    expect(stopped.attempts).toBe(0);

    const logs: Record<string, unknown>[] = [];
    worker(store, { batchRows: 300 }, logs).start();
    const done = await untilFinished(store, id);
    expect(done).toMatchObject({
      state: "done",
      attempts: 1,
      lines_done: n,
      rows_imported: n,
      rows_bad: 0,
      rows_skipped: 0,
    });
    expect(files.hits.get("/stop.csv")).toBe(2);
    // The same version (ETag, Last-Modified, length): the staged lines were skipped, not staged again.
    expect(logs.filter((e) => e.event === "import.restarted")).toEqual([]);
    expect(logs.find((e) => e.event === "import.claimed")).toMatchObject({ linesDone: stopped.lines_done });
    expect(await staged(store, id)).toBe(0);
    await expectExactlyGenerated(store, account, listId, "p", n);
  });

  it("a worker that lost its lease writes nothing more", async () => {
    const { store, account, listId } = await fresh("lease");
    const n = 5000;
    const body = genFile("l", n);
    files.routes.set("/lease.csv", (req, res, hit) =>
      hit === 1 ? sendSlowly(res, body, 2048, 15) : whole(body)(req, res, hit),
    );
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/lease.csv`,
    );
    const logs: Record<string, unknown>[] = [];
    worker(store, { batchRows: 100, leaseMs: 600 }, logs).start();
    await waitFor("progress", async () => (await row(store, id)).lines_done >= 300);
    // Another owner takes the import over (as after a stall longer than the lease).
    await store.db
      .updateTable("imports")
      .set({ lease_owner: "intruder", lease_until: Date.now() + 60_000 })
      .where("id", "=", id)
      .execute();
    const taken = await row(store, id);
    await waitFor(
      "the lease loss to be noticed",
      () => logs.some((e) => e.event === "import.lease_lost"),
      10_000,
    );
    await sleep(300);
    const after = await row(store, id);
    expect(after.lines_done).toBe(taken.lines_done);
    expect(after.lease_owner).toBe("intruder");
    expect(await staged(store, id)).toBe(taken.lines_done);
    expect(await count(store, "memberships", { list_id: listId })).toBe(0);

    await store.db
      .updateTable("imports")
      .set({ lease_owner: null, lease_until: null })
      .where("id", "=", id)
      .execute();
    const done = await untilFinished(store, id);
    expect(done).toMatchObject({ state: "done", lines_done: n, rows_imported: n, attempts: 2 });
    await expectExactlyGenerated(store, account, listId, "l", n);
  });

  // ---- Fairness and stalls --------------------------------------------------------------------------------

  /** A route that sends `head` and then nothing until `release` is called (a drip that stopped). */
  function holdingRoute(head: Buffer): { route: Route; release: () => void } {
    const held: ServerResponse[] = [];
    return {
      route: (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write(head);
        held.push(res);
      },
      release: () => {
        for (const res of held.splice(0)) res.destroy();
      },
    };
  }

  it("a file of one account that stops sending does not hold up another account's import; the account's next import waits its turn", async () => {
    const { store, account, listId } = await fresh("fair");
    const other = await addAccount(store, "fair_b");
    const drip = holdingRoute(genFile("x", 10));
    cleanups.push(async () => drip.release());
    files.routes.set("/drip.csv", drip.route);
    files.routes.set("/drip2.csv", drip.route);
    files.routes.set("/b.csv", whole(genFile("b", 500)));
    const queue = createImportQueue(store, { allowHosts: ALLOW });
    // Account one's two dripping files are queued first, the other account's file last.
    const a1 = await queue.enqueue(account, listId, `${files.base}/drip.csv`);
    const a2 = await queue.enqueue(account, listId, `${files.base}/drip2.csv`);
    const b = await queue.enqueue(other.account, other.listId, `${files.base}/b.csv`);
    worker(store, { concurrency: 2, stallMs: 60_000, batchRows: 5 }).start();
    const done = await untilFinished(store, b, 20_000);
    expect(done).toMatchObject({ state: "done", rows_imported: 500 });
    // Account one's first file is still being read; its second never started (one import per account).
    expect((await row(store, a1)).state).toBe("importing");
    expect(await row(store, a2)).toMatchObject({ state: "queued", attempts: 0 });
    expect(files.hits.get("/drip2.csv")).toBeUndefined();
  });

  it("takes the accounts in turn: the account whose last import was claimed longest ago goes first", async () => {
    const { store, account, listId } = await fresh("turns");
    const b = await addAccount(store, "turns_b");
    const c = await addAccount(store, "turns_c");
    for (const name of ["a1", "a2", "a3", "b1", "c1"])
      files.routes.set(`/${name}.csv`, whole(genFile(name, 20)));
    const queue = createImportQueue(store, { allowHosts: ALLOW });
    const ids = new Map<number, string>();
    for (const name of ["a1", "a2", "a3"])
      ids.set(await queue.enqueue(account, listId, `${files.base}/${name}.csv`), name);
    ids.set(await queue.enqueue(b.account, b.listId, `${files.base}/b1.csv`), "b1");
    ids.set(await queue.enqueue(c.account, c.listId, `${files.base}/c1.csv`), "c1");
    const logs: Record<string, unknown>[] = [];
    worker(store, { concurrency: 1 }, logs).start();
    for (const id of ids.keys())
      expect(await untilFinished(store, id)).toMatchObject({ state: "done", rows_imported: 20 });
    const order = logs.filter((e) => e.event === "import.claimed").map((e) => ids.get(e.import as number));
    expect(order).toEqual(["a1", "b1", "c1", "a2", "a3"]);
  });

  it("gives up a download that sends nothing for stallMs (no head, or no more body) and retries it, long before the time limit", async () => {
    const { store, account, listId } = await fresh("stall");
    const silent = holdingRoute(Buffer.alloc(0));
    const stops = holdingRoute(genFile("s", 10));
    const stopsRoute: Route = (req, res, hit) => {
      res.setHeader("etag", '"stops-v1"');
      return stops.route(req, res, hit);
    };
    cleanups.push(async () => {
      silent.release();
      stops.release();
    });
    files.routes.set("/headless.csv", () => undefined); // accepts, never answers
    files.routes.set("/stops.csv", stopsRoute);
    const queue = createImportQueue(store, { allowHosts: ALLOW });
    const headless = await queue.enqueue(account, listId, `${files.base}/headless.csv`);
    const stopped = await queue.enqueue(account, listId, `${files.base}/stops.csv`);
    worker(store, {
      stallMs: 200,
      timeoutMs: 600_000,
      retryBackoffMs: 20,
      concurrency: 2,
      batchRows: 5,
    }).start();
    for (const id of [headless, stopped]) {
      const failed = await untilFinished(store, id, 30_000);
      expect(failed).toMatchObject({ state: "failed", attempts: 3, rows_imported: 0 });
      expect(failed.error).toContain("no data arrived for 200 ms");
    }
    expect(files.hits.get("/headless.csv")).toBe(3);
    expect(files.hits.get("/stops.csv")).toBe(3);
    // Lines were staged, none applied: nothing of a failed import is left (its staged rows are deleted
    // after it is marked failed).
    expect(await count(store, "memberships", { list_id: listId })).toBe(0);
    await waitFor("the staged rows to be deleted", async () => (await staged(store, stopped)) === 0);
  });

  // ---- One version of the file, or none of it ------------------------------------------------------------

  /** Sends the first `lines` lines of `body` (with its validators), then cuts the connection. */
  function cutAfter(body: Buffer, lines: number, headers: Record<string, string> = versionOf(body)): Route {
    let at = 0;
    for (let i = 0; i < lines; i++) at = body.indexOf("\n", at) + 1;
    return (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", ...headers });
      res.write(body.subarray(0, at));
      setTimeout(() => res.destroy(), 50);
    };
  }

  it.each([
    ["a new ETag", (body: Buffer) => versionOf(body)],
    ["no validators at all", () => ({})],
  ])(
    "a file that changed between attempts (%s) is staged again from line 1: only the new version's rows",
    async (_label, headersOf) => {
      const { store, account, listId } = await fresh(`version_${_label.replace(/\W+/g, "_")}`);
      const v1 = genFile("old", 3000);
      const v2 = genFile("new", 1200); // shorter: the old version's lines past its end must go too
      files.routes.set("/changing.csv", (req, res, hit) =>
        hit === 1
          ? cutAfter(v1, 2500, headersOf(v1))(req, res, hit)
          : whole(v2, headersOf(v2))(req, res, hit),
      );
      const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
        account,
        listId,
        `${files.base}/changing.csv`,
      );
      const logs: Record<string, unknown>[] = [];
      worker(store, { batchRows: 100 }, logs).start();
      const done = await untilFinished(store, id);
      expect(done).toMatchObject({
        state: "done",
        attempts: 2,
        lines_done: 1200,
        rows_imported: 1200,
        rows_bad: 0,
        rows_skipped: 0,
      });
      // The first attempt staged some of the old version's lines (how many depends on when the cut came).
      const restarts = logs.filter((e) => e.event === "import.restarted");
      expect(restarts).toHaveLength(1);
      expect(restarts[0]!.linesDone).toBeGreaterThan(0);
      expect(files.hits.get("/changing.csv")).toBe(2);
      await expectExactlyGenerated(store, account, listId, "new", 1200);
      expect(await staged(store, id)).toBe(0);
    },
  );

  it("a file larger than maxBytes without a Content-Length fails with nothing of it applied or left staged", async () => {
    const { store, account, listId } = await fresh("too_large");
    const body = genFile("big", 20_000); // about 800 KB
    files.routes.set("/chunked.csv", (_req, res) => sendSlowly(res, body, 16_384, 2, {}));
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/chunked.csv`,
    );
    const logs: Record<string, unknown>[] = [];
    worker(store, { batchRows: 100, maxBytes: 300_000 }, logs).start();
    const failed = await untilFinished(store, id);
    expect(failed).toMatchObject({ state: "failed", attempts: 1, rows_imported: 0, rows_skipped: 0 });
    expect(failed.error).toContain("larger than the limit of 300000 bytes");
    // Batches were staged before the limit struck (it is only known at byte 300,001), and none applied.
    expect(failed.lines_done).toBeGreaterThan(1000);
    expect(await count(store, "subscribers", { account_id: account.id })).toBe(0);
    expect(await count(store, "memberships", { list_id: listId })).toBe(0);
    await waitFor("the staged rows to be deleted", async () => (await staged(store, id)) === 0);
    expect(files.hits.get("/chunked.csv")).toBe(1);
  });

  /** Runs a worker in a child process (test/service/fixtures/worker.ts) until the test kills it. */
  function childWorker(
    url: string,
    options: Partial<ImportWorkerOptions> & { workerId: string },
  ): { child: ChildProcess; exited: Promise<unknown[]>; stderr: () => string } {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        CHILD,
        "import",
        url,
        JSON.stringify({ allowHosts: ALLOW, pollMs: 20, ...options }),
      ],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = once(child, "exit");
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    return { child, exited, stderr: () => stderr };
  }

  /** Waits until `until` holds for the import (showing the child's stderr if it never does), then kill -9s the child. */
  async function killNineWhen(
    worker: { child: ChildProcess; exited: Promise<unknown[]>; stderr: () => string },
    what: string,
    until: () => Promise<boolean>,
    ms: number,
  ): Promise<void> {
    try {
      await waitFor(what, until, ms);
    } catch (error) {
      throw new Error(`${String(error)}; child stderr: ${worker.stderr()}`);
    }
    worker.child.kill("SIGKILL");
    const [code, signal] = (await worker.exited) as [number | null, string | null];
    expect(signal).toBe("SIGKILL");
    expect(code).toBeNull();
  }

  it("kill -9 of the worker process while staging and again while applying 100,000 rows: the next worker ends with exactly the rows", async () => {
    const { url, store, account, listId } = await fresh("kill9");
    const n = 100_000;
    const body = genFile("k", n);
    // The first download trickles (the killed one); the second comes at once.
    files.routes.set("/big.csv", (req, res, hit) =>
      hit === 1 ? sendSlowly(res, body, 16_384, 20) : whole(body)(req, res, hit),
    );
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/big.csv`,
    );

    // 1. Killed while staging: the staged lines are exactly the committed batches, nothing is applied.
    const first = childWorker(url, { batchRows: 500, leaseMs: 1500, workerId: "child" });
    await killNineWhen(
      first,
      "the child to commit batches",
      async () => (await row(store, id)).lines_done >= 2000,
      30_000,
    );
    const killed = await row(store, id);
    expect(killed.state).toBe("importing");
    expect(killed.lease_owner).toBe("child");
    expect(killed.lines_done).toBeGreaterThan(0);
    expect(killed.lines_done).toBeLessThan(n);
    expect(killed.lines_done % 500).toBe(0);
    expect(await staged(store, id)).toBe(killed.lines_done);
    expect(await count(store, "memberships", { list_id: listId })).toBe(0);

    // 2. The next worker stages the rest of the same version (skipping what is staged) and is killed
    // while applying: the rows applied and the rows still staged are the whole file.
    const second = childWorker(url, { batchRows: 100, leaseMs: 1500, workerId: "child2" });
    await killNineWhen(
      second,
      "the apply to begin",
      async () => {
        const r = await row(store, id);
        return r.state === "applying" && r.rows_imported >= 1000;
      },
      60_000,
    );
    const applying = await row(store, id);
    expect(applying).toMatchObject({ state: "applying", lease_owner: "child2", lines_done: n, attempts: 2 });
    expect(applying.rows_imported).toBeLessThan(n);
    expect(applying.rows_imported + (await staged(store, id))).toBe(n);
    expect(await count(store, "memberships", { list_id: listId })).toBe(applying.rows_imported);
    expect(second.stderr()).not.toContain("import.restarted");

    // 3. The restarted service applies the rest once the dead one's lease ran out, without downloading.
    const logs: Record<string, unknown>[] = [];
    worker(store, { leaseMs: 5_000 }, logs).start();
    const done = await untilFinished(store, id, 100_000);
    const claim = logs.find((e) => e.event === "import.claimed");
    expect(claim).toMatchObject({ import: id, attempts: 3, linesDone: n, state: "applying" });
    expect(done).toMatchObject({
      state: "done",
      attempts: 3,
      lines_done: n,
      rows_imported: n,
      rows_skipped: 0,
      rows_bad: 0,
    });
    expect(done.first_errors).toEqual([]);
    expect(files.hits.get("/big.csv")).toBe(2);
    expect(await staged(store, id)).toBe(0);
    await expectExactlyGenerated(store, account, listId, "k", n);
  }, 200_000);

  it("kill -9 while staging, and the file changes before the next attempt: only the new version's rows", async () => {
    const { url, store, account, listId } = await fresh("kill9_version");
    const v1 = genFile("k1", 20_000);
    const v2 = genFile("k2", 15_000);
    files.routes.set("/moving.csv", (req, res, hit) =>
      hit === 1 ? sendSlowly(res, v1, 4096, 20) : whole(v2)(req, res, hit),
    );
    const id = await createImportQueue(store, { allowHosts: ALLOW }).enqueue(
      account,
      listId,
      `${files.base}/moving.csv`,
    );
    const child = childWorker(url, { batchRows: 250, leaseMs: 1500, workerId: "child" });
    await killNineWhen(
      child,
      "the child to stage batches",
      async () => (await row(store, id)).lines_done >= 1000,
      30_000,
    );
    const killed = await row(store, id);
    expect(killed.state).toBe("importing");
    expect(await staged(store, id)).toBe(killed.lines_done);

    const logs: Record<string, unknown>[] = [];
    worker(store, { leaseMs: 5_000, batchRows: 500 }, logs).start();
    const done = await untilFinished(store, id, 60_000);
    expect(done).toMatchObject({
      state: "done",
      attempts: 2,
      lines_done: 15_000,
      rows_imported: 15_000,
      rows_bad: 0,
    });
    expect(logs.filter((e) => e.event === "import.restarted")).toHaveLength(1);
    await expectExactlyGenerated(store, account, listId, "k2", 15_000);
    expect(await staged(store, id)).toBe(0);
  }, 120_000);

  if (engine === "postgres") {
    it("two instances on one database import each queued file exactly once, one import of an account at a time", async () => {
      const { url, store, account, listId } = await fresh("two");
      const second = await openStore(url);
      cleanups.push(() => second.close());
      const others = [await addAccount(store, "two_b"), await addAccount(store, "two_c")];
      const n = 20_000;
      // Account one has two files, the others one each.
      const plan = [
        { name: "a", account, listId },
        { name: "b", ...others[0]! },
        { name: "c", ...others[1]! },
        { name: "d", account, listId },
      ];
      // Each download lasts several lease periods, so a lease that were not renewed would be taken over.
      for (const { name } of plan)
        files.routes.set(`/${name}.csv`, (_req, res) => sendSlowly(res, genFile(name, n), 8_192, 50));
      const queue = createImportQueue(store, { allowHosts: ALLOW });
      const logs: Record<string, unknown>[] = [];
      const w1 = worker(store, { batchRows: 500, leaseMs: 2_000, workerId: "one" }, logs);
      const w2 = worker(second, { batchRows: 500, leaseMs: 2_000, workerId: "two" }, logs);
      w1.start();
      w2.start();
      const ids: number[] = [];
      for (const { name, account: owner, listId: list } of plan)
        ids.push(await queue.enqueue(owner, list, `${files.base}/${name}.csv`));
      w1.wake();
      w2.wake();
      // How many of account one's imports are being worked on (leased), sampled while they run: each
      // import takes seconds, so two at once would be seen.
      let mostAtOnce = 0;
      let sampling = true;
      cleanups.push(async () => {
        sampling = false;
        await sampler;
      });
      const sampler = (async () => {
        while (sampling) {
          const leased = await store.db
            .selectFrom("imports")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("account_id", "=", account.id)
            .where("lease_owner", "is not", null)
            .where("state", "in", ["fetching", "importing", "applying"])
            .executeTakeFirstOrThrow();
          mostAtOnce = Math.max(mostAtOnce, Number(leased.n));
          await sleep(10);
        }
      })();
      for (const id of ids) {
        const done = await untilFinished(store, id, 90_000);
        expect(
          done,
          JSON.stringify(logs.filter((e) => e.event !== "import.claimed" && e.event !== "import.done")),
        ).toMatchObject({ state: "done", attempts: 1, lines_done: n, rows_imported: n, rows_bad: 0 });
      }
      for (const { name } of plan) expect(files.hits.get(`/${name}.csv`)).toBe(1);
      const claims = logs.filter((e) => e.event === "import.claimed");
      expect(claims.map((e) => e.import).sort()).toEqual([...ids].sort());
      expect(new Set(claims.map((e) => e.worker)).size).toBe(2);
      expect(logs.filter((e) => e.event === "import.lease_lost")).toEqual([]);
      // Account one's two imports ran one after the other.
      sampling = false;
      await sampler;
      expect(mostAtOnce).toBe(1);
      expect(await count(store, "subscribers", { account_id: account.id })).toBe(2 * n);
      expect(await count(store, "memberships", { list_id: listId })).toBe(2 * n);
      for (const other of others)
        expect(await count(store, "memberships", { list_id: other.listId })).toBe(n);
    }, 120_000);
  }
});
