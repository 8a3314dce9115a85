import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { engines, freshDatabaseUrl } from "./engines.ts";
import { isCI } from "./global-setup.ts";
import {
  DATABASE_NAME,
  createDatabase,
  findPostgresBin,
  searchPostgresBin,
  startThrowawayCluster,
} from "./postgres.ts";

const postgres = engines().find((e) => e.name === "postgres");
const skip = postgres?.skip;
if (skip !== undefined) process.stderr.write(`postgres.test.ts: postgres tests skipped: ${skip}\n`);

describe("findPostgresBin", () => {
  const search = searchPostgresBin();
  it.skipIf(search.bin === undefined && !isCI())(
    `finds initdb and pg_ctl${search.bin === undefined ? ` (skipped: ${search.reason})` : ""}`,
    () => {
      const bin = findPostgresBin();
      expect(bin, search.reason).toBeTypeOf("string");
      for (const name of ["initdb", "pg_ctl"]) accessSync(join(bin as string, name), constants.X_OK);
    },
  );

  it("honours PG_BIN, and only PG_BIN, when it is set", () => {
    const saved = process.env.PG_BIN;
    try {
      process.env.PG_BIN = "/nonexistent/pg/bin";
      expect(findPostgresBin()).toBeUndefined();
      expect(searchPostgresBin().reason).toContain("PG_BIN=/nonexistent/pg/bin");
    } finally {
      if (saved === undefined) delete process.env.PG_BIN;
      else process.env.PG_BIN = saved;
    }
  });
});

describe(`throwaway cluster${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it.skipIf(skip !== undefined)(
    "gives each suite its own database: a write in one is not seen in another",
    async () => {
      const a = await freshDatabaseUrl("postgres", "Isolation A!");
      const b = await freshDatabaseUrl("postgres", "isolation-b");
      expect(a).not.toBe(b);
      for (const url of [a, b]) expect(new URL(url).hostname).toBe("127.0.0.1");
      expect(new URL(a).pathname).toMatch(/^\/t_isolation_a_\d+_\d+_[0-9a-f]{6}$/);

      const ca = new pg.Client({ connectionString: a });
      const cb = new pg.Client({ connectionString: b });
      await ca.connect();
      await cb.connect();
      try {
        expect((await ca.query<{ db: string }>("SELECT current_database() AS db")).rows[0]?.db).toBe(
          new URL(a).pathname.slice(1),
        );
        await ca.query("CREATE TABLE marker (v text NOT NULL)");
        await ca.query("INSERT INTO marker (v) VALUES ($1)", ["written in a"]);
        expect((await ca.query<{ v: string }>("SELECT v FROM marker")).rows).toEqual([{ v: "written in a" }]);
        const seen = await cb.query<{ t: string | null }>("SELECT to_regclass('public.marker')::text AS t");
        expect(seen.rows).toEqual([{ t: null }]);
      } finally {
        await ca.end();
        await cb.end();
      }
    },
  );

  it.skipIf(skip !== undefined)(
    "refuses database names that are not plain lower-case identifiers",
    async () => {
      const admin = inject("pgAdminUrl") as string;
      for (const bad of ["", "A", "1abc", "x y", 'x"; DROP DATABASE postgres; --', "a-b", "é"]) {
        expect(DATABASE_NAME.test(bad)).toBe(false);
        await expect(createDatabase(admin, bad)).rejects.toThrow(/invalid database name/);
      }
    },
  );
});

describe(`durable throwaway cluster${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it.skipIf(skip !== undefined)(
    "runs with fsync, full_page_writes and synchronous_commit on (the tests' cluster has them off)",
    async () => {
      const settings = async (url: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const out: string[] = [];
          for (const name of ["fsync", "full_page_writes", "synchronous_commit"])
            out.push(String((await client.query(`SHOW ${name}`)).rows[0]?.[name]));
          return out;
        } finally {
          await client.end();
        }
      };
      const durable = await startThrowawayCluster(undefined, { durable: true });
      try {
        expect(await settings(durable.url)).toEqual(["on", "on", "on"]);
      } finally {
        await durable.stop();
      }
      expect(await settings(inject("pgAdminUrl") as string)).toEqual(["off", "off", "off"]);
    },
    120_000,
  );
});

describe("freshDatabaseUrl on sqlite", () => {
  it("gives a sqlite: URL in a fresh directory each time", async () => {
    const a = await freshDatabaseUrl("sqlite", "subscribers");
    const b = await freshDatabaseUrl("sqlite", "subscribers");
    expect(a).toMatch(/^sqlite:\/.*\/subscribers\.db$/);
    expect(a).not.toBe(b);
  });
});
