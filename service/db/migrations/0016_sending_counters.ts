// Migration 0016_sending_counters: per-sending counters, per-link click counters and per-minute/per-hour
// open and click buckets, kept by triggers in the transaction that writes each event, and filled here from
// the rows already there. What each counts, why triggers, and the reads: service/tables/sending-counters.ts.
// The recount below is the counters' definition: the fill here, and the tests' check of the triggers.
// Also an index of sending_recipients by message, which the outbox's trigger (and a bounce) looks up.
// Shipped: never edit it; add the next migration instead.

import { sql } from "kysely";
import type { Engine } from "../engine.js";
import type { AnyDb } from "./tables.js";

/** sending_counters' columns after sending_id, in order. */
export const COUNTER_COLUMNS = [
  "sent",
  "skipped",
  "cancelled",
  "pending",
  "accepted",
  "failed",
  "withdrawn",
  "hard",
  "soft",
  "complaints",
  "accepted_bounced",
  "opens",
  "opens_total",
  "clickers",
  "clicks_total",
  "unsubscribes",
] as const;

export type CounterColumn = (typeof COUNTER_COLUMNS)[number];

/** The widths of sending_event_buckets' buckets (ms): a minute and an hour. */
export const BUCKET_WIDTHS = [60_000, 3_600_000] as const;

// ---- Triggers ---------------------------------------------------------------------------------------
// A counting adds, for each row a statement wrote, `deltas` to the target row named by `keys` (made when
// missing). Expressions name the written row `{n}` and, for updates, its previous values `{o}`.

interface Counting {
  readonly target: "sending_counters" | "sending_link_counters" | "sending_event_buckets";
  readonly keys: Readonly<Record<string, string>>;
  readonly deltas: Readonly<Record<string, string>>;
  /** Rows that count (besides the trigger's `when`). */
  readonly where?: string;
}

interface CountingTrigger {
  readonly name: string;
  readonly table: string;
  readonly event: "insert" | "update";
  /** The columns that identify a row (PostgreSQL joins a statement's old and new rows on them). */
  readonly key: readonly string[];
  /** Rows that can change a counter: others cost nothing more. */
  readonly when: string;
  readonly counts: readonly Counting[];
}

/** 1 when `condition` holds, else 0. */
const one = (condition: string) => `(case when ${condition} then 1 else 0 end)`;
/** 1 when message `mailId` exists and is in one of `states`, else 0. */
const mailIn = (mailId: string, states: string) =>
  `coalesce((select ${one(`m.state in (${states})`)} from mail_outbox m where m.id = ${mailId}), 0)`;
const MAIL_STATES: Readonly<Record<string, string>> = {
  pending: "'queued', 'held'",
  accepted: "'sent'",
  failed: "'dead'",
  withdrawn: "'cancelled'",
};
const RECIPIENT_STATES = ["sent", "skipped", "cancelled"] as const;

/** Deltas of a recipient row's state and message (from nothing on insert). */
function recipientDeltas(update: boolean): Record<string, string> {
  const deltas: Record<string, string> = {};
  for (const s of RECIPIENT_STATES)
    deltas[s] = update
      ? `${one(`{n}.state = '${s}'`)} - ${one(`{o}.state = '${s}'`)}`
      : one(`{n}.state = '${s}'`);
  for (const [column, states] of Object.entries(MAIL_STATES))
    deltas[column] = update
      ? `${mailIn("{n}.mail_id", states)} - ${mailIn("{o}.mail_id", states)}`
      : mailIn("{n}.mail_id", states);
  return deltas;
}

/**
 * A tracking-bound row (one per recipient, link and kind) made (`made`) or counting `added` more events:
 * a made view row is a unique open, a made click row a unique click of its link, and of the sending when
 * the recipient has no other click row.
 */
function limitCounts(added: string, made: boolean): Counting[] {
  const clicker =
    "{n}.kind = 'click' and not exists (select 1 from tracking_limits x where x.sending_id = {n}.sending_id and x.subscriber_id = {n}.subscriber_id and x.kind = 'click' and x.link_id <> {n}.link_id)";
  return [
    {
      target: "sending_counters",
      keys: { sending_id: "{n}.sending_id" },
      deltas: {
        ...(made ? { opens: one("{n}.kind = 'view'"), clickers: one(clicker) } : {}),
        opens_total: `case when {n}.kind = 'view' then ${added} else 0 end`,
        clicks_total: `case when {n}.kind = 'click' then ${added} else 0 end`,
      },
    },
    {
      target: "sending_link_counters",
      keys: { sending_id: "{n}.sending_id", link_id: "{n}.link_id" },
      deltas: { clickers: made ? "1" : "0", clicks: added },
      where: "{n}.kind = 'click'",
    },
  ];
}

const BUCKETS: Counting[] = BUCKET_WIDTHS.map((width) => ({
  target: "sending_event_buckets",
  keys: {
    sending_id: "{n}.sending_id",
    width: String(width),
    bucket: `{n}.created_at - {n}.created_at % ${width}`,
  },
  deltas: { opens: one("{n}.kind = 'view'"), clicks: one("{n}.kind = 'click'") },
  where: "{n}.kind in ('view', 'click')",
}));

/** Every counting trigger (migration 0016 creates them). */
const COUNTING: readonly CountingTrigger[] = [
  {
    name: "sc_recipient_insert",
    table: "sending_recipients",
    event: "insert",
    key: ["sending_id", "subscriber_id"],
    when: "{n}.state <> 'queued' or {n}.mail_id is not null",
    counts: [
      { target: "sending_counters", keys: { sending_id: "{n}.sending_id" }, deltas: recipientDeltas(false) },
    ],
  },
  {
    name: "sc_recipient_update",
    table: "sending_recipients",
    event: "update",
    key: ["sending_id", "subscriber_id"],
    when: "{o}.state <> {n}.state or coalesce({o}.mail_id, 0) <> coalesce({n}.mail_id, 0)",
    counts: [
      { target: "sending_counters", keys: { sending_id: "{n}.sending_id" }, deltas: recipientDeltas(true) },
    ],
  },
  {
    name: "sc_mail_update",
    table: "mail_outbox",
    event: "update",
    key: ["id"],
    when: "{o}.state <> {n}.state",
    counts: [
      {
        target: "sending_counters",
        keys: { sending_id: "(select r.sending_id from sending_recipients r where r.mail_id = {n}.id)" },
        deltas: Object.fromEntries(
          Object.entries(MAIL_STATES).map(([column, states]) => [
            column,
            `${one(`{n}.state in (${states})`)} - ${one(`{o}.state in (${states})`)}`,
          ]),
        ),
      },
      {
        target: "sending_counters",
        keys: {
          sending_id:
            "(select max(e.sending_id) from mail_events e where e.mail_id = {n}.id and e.kind in ('hard', 'soft'))",
        },
        deltas: { accepted_bounced: `${one("{n}.state = 'sent'")} - ${one("{o}.state = 'sent'")}` },
        where: "{n}.state = 'sent' or {o}.state = 'sent'",
      },
    ],
  },
  {
    name: "sc_mail_event_insert",
    table: "mail_events",
    event: "insert",
    key: ["id"],
    when: "{n}.sending_id is not null",
    counts: [
      {
        target: "sending_counters",
        keys: { sending_id: "{n}.sending_id" },
        deltas: {
          hard: one("{n}.kind = 'hard'"),
          soft: `${one("{n}.kind = 'soft' and not exists (select 1 from mail_events x where x.mail_id = {n}.mail_id and x.kind = 'hard')")} - ${one("{n}.kind = 'hard' and exists (select 1 from mail_events x where x.mail_id = {n}.mail_id and x.kind = 'soft')")}`,
          complaints: one("{n}.kind = 'complaint'"),
          accepted_bounced: one(
            "{n}.kind in ('hard', 'soft') and not exists (select 1 from mail_events x where x.mail_id = {n}.mail_id and x.kind in ('hard', 'soft') and x.id <> {n}.id) and exists (select 1 from mail_outbox m where m.id = {n}.mail_id and m.state = 'sent')",
          ),
        },
      },
    ],
  },
  {
    name: "sc_tracking_limit_insert",
    table: "tracking_limits",
    event: "insert",
    key: ["sending_id", "subscriber_id", "link_id", "kind"],
    when: "{n}.kind in ('view', 'click')",
    counts: limitCounts("{n}.total", true),
  },
  {
    name: "sc_tracking_limit_update",
    table: "tracking_limits",
    event: "update",
    key: ["sending_id", "subscriber_id", "link_id", "kind"],
    when: "{n}.kind in ('view', 'click') and {o}.total <> {n}.total",
    counts: limitCounts("{n}.total - {o}.total", false),
  },
  {
    name: "sc_tracking_event_insert",
    table: "tracking_events",
    event: "insert",
    key: ["id"],
    when: "{n}.kind in ('view', 'click', 'unsubscribe')",
    counts: [
      {
        target: "sending_counters",
        keys: { sending_id: "{n}.sending_id" },
        deltas: { unsubscribes: "1" },
        where: "{n}.kind = 'unsubscribe'",
      },
      ...BUCKETS,
    ],
  },
];

/** The upsert of one counting, with `{n}`/`{o}` named `n`/`o` and read from `from` (empty on SQLite). */
function countingStatement(c: Counting, when: string, from: string, n: string, o: string): string {
  const names = (text: string) => text.replaceAll("{n}", n).replaceAll("{o}", o);
  const keys = Object.keys(c.keys);
  const deltas = Object.keys(c.deltas);
  const inner = [
    ...Object.entries(c.keys).map(([k, e]) => `${names(e)} as ${k}`),
    ...Object.entries(c.deltas).map(([d, e]) => `${names(e)} as ${d}`),
  ].join(", ");
  const where = [when, ...(c.where === undefined ? [] : [c.where])].map((w) => `(${names(w)})`).join(" and ");
  return `insert into ${c.target} (${[...keys, ...deltas].join(", ")})
select ${[...keys, ...deltas.map((d) => `sum(${d})`)].join(", ")}
from (select ${inner}${from} where ${where}) x
where ${keys.map((k) => `${k} is not null`).join(" and ")}
group by ${keys.join(", ")} order by ${keys.join(", ")}
on conflict (${keys.join(", ")}) do update set ${deltas.map((d) => `${d} = ${c.target}.${d} + excluded.${d}`).join(", ")}`;
}

/** The statements that create the counting triggers on `engine`. */
function countingTriggerSql(engine: Engine): string[] {
  const out: string[] = [];
  for (const t of COUNTING) {
    if (engine === "sqlite") {
      const when = t.when.replaceAll("{n}", "new").replaceAll("{o}", "old");
      const body = t.counts.map((c) => `${countingStatement(c, "1 = 1", "", "new", "old")};`).join("\n");
      out.push(`create trigger ${t.name} after ${t.event} on ${t.table} when ${when}\nbegin\n${body}\nend`);
      continue;
    }
    const from =
      t.event === "insert"
        ? " from sc_new n"
        : ` from sc_new n join sc_old o on ${t.key.map((k) => `o.${k} = n.${k}`).join(" and ")}`;
    const body = t.counts.map((c) => `${countingStatement(c, t.when, from, "n", "o")};`).join("\n");
    out.push(
      `create function ${t.name}() returns trigger language plpgsql as $$\nbegin\n${body}\nreturn null;\nend\n$$`,
    );
    const transition =
      t.event === "insert" ? "new table as sc_new" : "old table as sc_old new table as sc_new";
    out.push(
      `create trigger ${t.name} after ${t.event} on ${t.table} referencing ${transition} for each statement execute function ${t.name}()`,
    );
  }
  return out;
}

// ---- Recounts from the raw rows ------------------------------------------------------------------------

/** `count(<rows>)` of a sending `s` as a correlated subquery. */
const recountOf: Readonly<Record<CounterColumn, string>> = {
  ...(Object.fromEntries(
    RECIPIENT_STATES.map((state) => [
      state,
      `(select count(*) from sending_recipients r where r.sending_id = s.id and r.state = '${state}')`,
    ]),
  ) as Record<(typeof RECIPIENT_STATES)[number], string>),
  ...(Object.fromEntries(
    Object.entries(MAIL_STATES).map(([column, states]) => [
      column,
      `(select count(*) from sending_recipients r join mail_outbox m on m.id = r.mail_id where r.sending_id = s.id and m.state in (${states}))`,
    ]),
  ) as Record<"pending" | "accepted" | "failed" | "withdrawn", string>),
  hard: "(select count(distinct e.mail_id) from mail_events e where e.sending_id = s.id and e.kind = 'hard')",
  soft: "(select count(distinct e.mail_id) from mail_events e where e.sending_id = s.id and e.kind = 'soft' and not exists (select 1 from mail_events x where x.mail_id = e.mail_id and x.kind = 'hard'))",
  complaints:
    "(select count(distinct e.mail_id) from mail_events e where e.sending_id = s.id and e.kind = 'complaint')",
  accepted_bounced:
    "(select count(distinct e.mail_id) from mail_events e join mail_outbox m on m.id = e.mail_id where e.sending_id = s.id and e.kind in ('hard', 'soft') and m.state = 'sent')",
  opens: "(select count(*) from tracking_limits t where t.sending_id = s.id and t.kind = 'view')",
  opens_total:
    "(select coalesce(sum(t.total), 0) from tracking_limits t where t.sending_id = s.id and t.kind = 'view')",
  clickers:
    "(select count(distinct t.subscriber_id) from tracking_limits t where t.sending_id = s.id and t.kind = 'click')",
  clicks_total:
    "(select coalesce(sum(t.total), 0) from tracking_limits t where t.sending_id = s.id and t.kind = 'click')",
  unsubscribes:
    "(select count(distinct t.subscriber_id) from tracking_events t where t.sending_id = s.id and t.kind = 'unsubscribe')",
};

export const RECOUNT_SENDINGS = `select s.id as sending_id, ${COUNTER_COLUMNS.map((c) => `${recountOf[c]} as ${c}`).join(", ")} from sendings s`;
export const RECOUNT_LINKS =
  "select sending_id, link_id, count(*) as clickers, sum(total) as clicks from tracking_limits where kind = 'click'";
export const recountBuckets = (width: number) =>
  `select sending_id, ${width} as width, created_at - created_at % ${width} as bucket, sum(case when kind = 'view' then 1 else 0 end) as opens, sum(case when kind = 'click' then 1 else 0 end) as clicks from tracking_events where kind in ('view', 'click')`;

/**
 * Sets every counter from the raw rows (the migration that made them, and bulk loads): one statement per
 * table, in the caller's transaction.
 */
export async function rebuildSendingCounters(db: AnyDb): Promise<void> {
  await sql`delete from sending_counters`.execute(db);
  await sql`delete from sending_link_counters`.execute(db);
  await sql`delete from sending_event_buckets`.execute(db);
  await sql
    .raw(`insert into sending_counters (sending_id, ${COUNTER_COLUMNS.join(", ")}) ${RECOUNT_SENDINGS}`)
    .execute(db);
  await sql
    .raw(
      `insert into sending_link_counters (sending_id, link_id, clickers, clicks) ${RECOUNT_LINKS} group by sending_id, link_id`,
    )
    .execute(db);
  for (const width of BUCKET_WIDTHS)
    await sql
      .raw(
        `insert into sending_event_buckets (sending_id, width, bucket, opens, clicks) ${recountBuckets(width)} group by sending_id, bucket`,
      )
      .execute(db);
}

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  let counters = db.schema
    .createTable("sending_counters")
    .addColumn("sending_id", "bigint", (c) => c.primaryKey());
  for (const column of COUNTER_COLUMNS)
    counters = counters.addColumn(column, "bigint", (c) => c.notNull().defaultTo(0));
  await counters.execute();
  await db.schema
    .createTable("sending_link_counters")
    .addColumn("sending_id", "bigint", (c) => c.notNull())
    .addColumn("link_id", "bigint", (c) => c.notNull())
    .addColumn("clickers", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("clicks", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("sending_link_counters_pk", ["sending_id", "link_id"])
    .execute();
  await db.schema
    .createTable("sending_event_buckets")
    .addColumn("sending_id", "bigint", (c) => c.notNull())
    .addColumn("width", "bigint", (c) => c.notNull())
    .addColumn("bucket", "bigint", (c) => c.notNull())
    .addColumn("opens", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("clicks", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("sending_event_buckets_pk", ["sending_id", "width", "bucket"])
    .execute();
  await db.schema.createIndex("sending_recipients_mail").on("sending_recipients").column("mail_id").execute();
  for (const statement of countingTriggerSql(engine)) await sql.raw(statement).execute(db);
  await rebuildSendingCounters(db);
}
