// Versioned migrations, in code, applied on start (Kysely's Migrator keeps the applied names in
// kysely_migration and takes a lock, so two instances starting at once apply each migration once).
// Never edit a migration that has shipped: add the next one.

import { randomBytes } from "node:crypto";
import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Engine } from "./database.js";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
type AnyDb = Kysely<any>;

/** Every migration by name (applied in name order). */
export function codeMigrations(engine: Engine): Record<string, Migration> {
  /** An id from the engine's own sequence, never reused (SQLite AUTOINCREMENT, PostgreSQL identity). */
  const id = engine === "sqlite" ? ("integer" as const) : ("bigint" as const);
  const idColumn = (db: AnyDb, table: string) =>
    db.schema
      .createTable(table)
      .addColumn("id", id, (c) =>
        engine === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
      );
  return {
    "0001_accounts_subscribers_lists": {
      async up(db: AnyDb) {
        await idColumn(db, "accounts")
          .addColumn("username", "text", (c) => c.notNull().unique())
          .addColumn("password_hash", "text", (c) => c.notNull())
          .addColumn("password_version", "integer", (c) => c.notNull().defaultTo(1))
          .addColumn("dd_fields", "integer", (c) => c.notNull().defaultTo(25))
          .addColumn("time_zone", "text", (c) => c.notNull().defaultTo("UTC"))
          .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("sms_credits", "text", (c) => c.notNull().defaultTo("0"))
          .addColumn("sms_price", "text", (c) => c.notNull().defaultTo("1"))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await idColumn(db, "mailing_lists")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("charset", "text", (c) => c.notNull().defaultTo("utf-8"))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("mailing_lists_account")
          .on("mailing_lists")
          .column("account_id")
          .execute();
        await idColumn(db, "subscribers")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("email_key", "text", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("format", "text", (c) => c.notNull().defaultTo("HTML"))
          .addColumn("country_code", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("phone", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("fields", "text", (c) => c.notNull().defaultTo("{}"))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addUniqueConstraint("subscribers_account_email", ["account_id", "email_key"])
          .execute();
        await db.schema
          .createTable("memberships")
          .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
          .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("changed_at", "bigint", (c) => c.notNull())
          .addPrimaryKeyConstraint("memberships_pk", ["list_id", "subscriber_id"])
          .execute();
        await db.schema
          .createIndex("memberships_subscriber")
          .on("memberships")
          .column("subscriber_id")
          .execute();
        await db.schema
          .createTable("optouts")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("email_key", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addPrimaryKeyConstraint("optouts_pk", ["account_id", "email_key"])
          .execute();
        await db.schema
          .createTable("confirmations")
          .addColumn("token_hash", "text", (c) => c.primaryKey())
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("list_id", "bigint", (c) => c.notNull())
          .addColumn("subscriber_id", "bigint", (c) => c.notNull())
          .addColumn("expires_at", "bigint", (c) => c.notNull())
          .addColumn("used_at", "bigint")
          .execute();
        await idColumn(db, "mail_outbox")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("to_address", "text", (c) => c.notNull())
          .addColumn("subject", "text", (c) => c.notNull())
          .addColumn("message", "text", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "bigint")
          .addColumn("last_error", "text")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("sent_at", "bigint")
          .execute();
        await db.schema
          .createIndex("mail_outbox_due")
          .on("mail_outbox")
          .columns(["state", "next_attempt_at"])
          .execute();
        await idColumn(db, "imports")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("list_id", "bigint", (c) => c.notNull())
          .addColumn("url", "text", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
          .addColumn("lines_done", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("rows_imported", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("rows_skipped", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("rows_bad", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("first_errors", "text", (c) => c.notNull().defaultTo("[]"))
          .addColumn("error", "text")
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "bigint")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("updated_at", "bigint", (c) => c.notNull())
          .addColumn("finished_at", "bigint")
          .execute();
        await db.schema.createIndex("imports_state").on("imports").column("state").execute();
        await db.schema
          .createTable("secrets")
          .addColumn("name", "text", (c) => c.primaryKey())
          .addColumn("value", "text", (c) => c.notNull())
          .execute();
        // The key that signs links (confirmation, tracking): made once per database, never on the wire.
        await db
          .insertInto("secrets")
          .values({ name: "link_key", value: randomBytes(32).toString("base64url") })
          .execute();
      },
    },
    "0002_sms": {
      async up(db: AnyDb) {
        await idColumn(db, "sms_messages")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("sender_name", "text", (c) => c.notNull())
          .addColumn("country_code", "text", (c) => c.notNull())
          .addColumn("phone_number", "text", (c) => c.notNull())
          .addColumn("message", "text", (c) => c.notNull())
          .addColumn("encoding", "text", (c) => c.notNull())
          .addColumn("segments", "integer", (c) => c.notNull())
          // Exact decimal text, as accounts.sms_credits.
          .addColumn("cost", "text", (c) => c.notNull())
          // waiting (for credits, oldest first) -> queued (paid, to deliver) -> sent | dead
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "bigint")
          .addColumn("last_error", "text")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("paid_at", "bigint")
          .addColumn("sent_at", "bigint")
          .execute();
        await db.schema
          .createIndex("sms_messages_state")
          .on("sms_messages")
          .columns(["state", "account_id", "id"])
          .execute();
        await idColumn(db, "credit_ledger")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          // Signed exact decimal text: + refill, - an SMS paid.
          .addColumn("amount", "text", (c) => c.notNull())
          .addColumn("balance", "text", (c) => c.notNull())
          .addColumn("reason", "text", (c) => c.notNull())
          .addColumn("sms_id", "bigint")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
      },
    },
    "0003_transactional": {
      async up(db: AnyDb) {
        await idColumn(db, "projects")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("name", "text", (c) => c.notNull())
          // Templates with merge tags ({{Name}}, {{Email}}, {{DD3}}); html may be empty (text only).
          .addColumn("subject", "text", (c) => c.notNull())
          .addColumn("text_body", "text", (c) => c.notNull())
          .addColumn("html_body", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await idColumn(db, "transactions")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("project_id", "bigint", (c) => c.notNull().references("projects.id"))
          // The caller's reference: same project + identifier within 24 h is the same transaction.
          .addColumn("identifier", "text")
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("send_at", "bigint", (c) => c.notNull())
          .addColumn("mail_id", "bigint")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("transactions_identifier")
          .on("transactions")
          .columns(["project_id", "identifier", "created_at"])
          .execute();
      },
    },
    "0004_newsletters": {
      async up(db: AnyDb) {
        await idColumn(db, "templates")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          // What strTemplateName names: unique per account.
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
          // HTML and text with merge tags ({{Name}}, {{DD3}}, {{unsubscribe}}) and module holders {{holder:N}}.
          .addColumn("html", "text", (c) => c.notNull())
          .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addUniqueConstraint("templates_account_name", ["account_id", "name"])
          .execute();
        await idColumn(db, "modules")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("name", "text", (c) => c.notNull())
          // The module's original code (HTML with merge tags); a newsletter's copy may replace it.
          .addColumn("code", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await idColumn(db, "filters")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("name", "text", (c) => c.notNull())
          // One condition on a subscriber field: field (Email, Name, Format, CountryCode, Phone, DD1..DD100),
          // operator (=, !=, contains, startsWith, empty, notEmpty) and value; evaluated in code, never as SQL.
          .addColumn("field", "text", (c) => c.notNull())
          .addColumn("operator", "text", (c) => c.notNull())
          .addColumn("value", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await idColumn(db, "newsletters")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("template_id", "bigint", (c) => c.notNull().references("templates.id"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("subject", "text", (c) => c.notNull())
          // all | no | roi
          .addColumn("tracking", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await idColumn(db, "newsletter_modules")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
          .addColumn("module_id", "bigint", (c) => c.notNull().references("modules.id"))
          .addColumn("code", "text", (c) => c.notNull())
          .addColumn("module_index", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("holder_id", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("filter_id", "bigint", (c) => c.references("filters.id"))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("newsletter_modules_newsletter")
          .on("newsletter_modules")
          .column("newsletter_id")
          .execute();
      },
    },
    "0005_sendings_tracking": {
      async up(db: AnyDb) {
        await idColumn(db, "sendings")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
          .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
          .addColumn("filter_id", "bigint", (c) => c.references("filters.id"))
          .addColumn("from_email", "text", (c) => c.notNull())
          .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("send_at", "bigint", (c) => c.notNull())
          // scheduled -> expanding (recipients being listed) -> sending -> done
          .addColumn("state", "text", (c) => c.notNull().defaultTo("scheduled"))
          .addColumn("recipients", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "bigint")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("finished_at", "bigint")
          .execute();
        await db.schema.createIndex("sendings_state").on("sendings").columns(["state", "send_at"]).execute();
        // One row per recipient, made once when the sending starts: (sending, subscriber) is the key that
        // makes delivery exactly once; mail_id is set in the transaction that queues the recipient's mail.
        await db.schema
          .createTable("sending_recipients")
          .addColumn("sending_id", "bigint", (c) => c.notNull().references("sendings.id"))
          .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
          .addColumn("account_id", "bigint", (c) => c.notNull())
          // queued -> sent (mail queued) | skipped (opted out or unsubscribed meanwhile)
          .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
          .addColumn("mail_id", "bigint")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addPrimaryKeyConstraint("sending_recipients_pk", ["sending_id", "subscriber_id"])
          .execute();
        await db.schema
          .createIndex("sending_recipients_state")
          .on("sending_recipients")
          .columns(["sending_id", "state"])
          .execute();
        // Links of a sending's messages, so a click token names a link id and the redirect goes only there.
        await idColumn(db, "tracked_links")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("sending_id", "bigint", (c) => c.notNull().references("sendings.id"))
          .addColumn("url", "text", (c) => c.notNull())
          .addUniqueConstraint("tracked_links_sending_url", ["sending_id", "url"])
          .execute();
        await idColumn(db, "tracking_events")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("sending_id", "bigint", (c) => c.notNull())
          .addColumn("subscriber_id", "bigint", (c) => c.notNull())
          // view | click | conversion
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("link_id", "bigint")
          // Exact decimal text (conversions of roi newsletters).
          .addColumn("value", "text")
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("tracking_events_sending")
          .on("tracking_events")
          .columns(["sending_id", "kind", "created_at"])
          .execute();
      },
    },
    "0006_triggers": {
      async up(db: AnyDb) {
        await idColumn(db, "triggers")
          .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
          .addColumn("name", "text", (c) => c.notNull())
          // Fires when a subscriber becomes active on this list (a single insert, a CSV or file import, a
          // double opt-in confirmation) after the trigger was made: sends this newsletter to them, once.
          .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
          .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
          .addColumn("from_email", "text", (c) => c.notNull())
          .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();
        // The sending a trigger made (one per trigger), so its views and clicks are the trigger's.
        await db.schema.alterTable("sendings").addColumn("trigger_id", "bigint").execute();
        // Who a trigger has fired for: the key that makes it once per subscriber.
        await db.schema
          .createTable("trigger_fired")
          .addColumn("trigger_id", "bigint", (c) => c.notNull().references("triggers.id"))
          .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
          .addColumn("fired_at", "bigint", (c) => c.notNull())
          .addPrimaryKeyConstraint("trigger_fired_pk", ["trigger_id", "subscriber_id"])
          .execute();
      },
    },
    "0007_auth_throttle": {
      async up(db: AnyDb) {
        // Sign-in throttling shared by every instance (service/app/auth-throttle.ts): one row per key, a
        // keyed hash of a lower-cased user name, a source address, or the two (never the name or address).
        await db.schema
          .createTable("auth_throttle")
          .addColumn("key", "text", (c) => c.primaryKey())
          .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("last_failure_at", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("blocked_until", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("trusted_until", "bigint", (c) => c.notNull().defaultTo(0))
          .addColumn("expires_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("auth_throttle_expires")
          .on("auth_throttle")
          .column("expires_at")
          .execute();
        // The key of those hashes, the same for every instance.
        await db
          .insertInto("secrets")
          .values({ name: "auth_key", value: randomBytes(32).toString("base64url") })
          .execute();
      },
    },
    "0008_outbox_security": {
      async up(db: AnyDb) {
        // 0: mail someone waits for (confirmation, transactional), claimed before 1: bulk (newsletters,
        // triggers). The worker claims per class and account in turn, so one index walk finds the next
        // account with queued mail and its oldest due messages without scanning a backlog.
        await db.schema
          .alterTable("mail_outbox")
          .addColumn("priority", "integer", (c) => c.notNull().defaultTo(1))
          .execute();
        await db
          .updateTable("mail_outbox")
          .set({ priority: 0 })
          .where("kind", "in", ["confirmation", "transactional"])
          .execute();
        // When the message was first tried: retries stop MAIL_RETRY_MAX_AGE_MS after it.
        await db.schema.alterTable("mail_outbox").addColumn("first_attempt_at", "bigint").execute();
        // When a delivered message was sent while its whole text is still kept (OUTBOX_RETENTION_DAYS);
        // null once it is cut to its headers. Messages delivered before this migration are cut first.
        await db.schema.alterTable("mail_outbox").addColumn("retained_since", "bigint").execute();
        await db
          .updateTable("mail_outbox")
          .set((eb) => ({ retained_since: eb.ref("sent_at") }))
          .where("state", "=", "sent")
          .execute();
        await db.schema.dropIndex("mail_outbox_due").execute();
        await db.schema
          .createIndex("mail_outbox_fair")
          .on("mail_outbox")
          .columns(["state", "priority", "account_id", "next_attempt_at", "id"])
          .execute();
        await db.schema
          .createIndex("mail_outbox_retained")
          .on("mail_outbox")
          .column("retained_since")
          .execute();
      },
    },
    "0009_import_security": {
      async up(db: AnyDb) {
        // Imports: the account whose import was claimed longest ago goes first (per-account fairness),
        // and the validators of the file version being staged (a resumed download of another version
        // starts over instead of mixing versions).
        await db.schema.alterTable("imports").addColumn("claimed_at", "bigint").execute();
        await db.schema.alterTable("imports").addColumn("file_etag", "text").execute();
        await db.schema.alterTable("imports").addColumn("file_last_modified", "text").execute();
        await db.schema.alterTable("imports").addColumn("file_length", "bigint").execute();
        await db.schema
          .createIndex("imports_account_claimed")
          .on("imports")
          .columns(["account_id", "claimed_at"])
          .execute();
        // An import's good rows, a batch of lines per row, staged until the whole file is read, then
        // applied in order.
        await db.schema
          .createTable("import_batches")
          .addColumn("import_id", "bigint", (c) => c.notNull())
          .addColumn("first_line", "bigint", (c) => c.notNull())
          .addColumn("last_line", "bigint", (c) => c.notNull())
          .addColumn("rows", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("import_batches_pk", ["import_id", "first_line"])
          .execute();
      },
    },
    "0010_tracking_security": {
      async up(db: AnyDb) {
        // What each tracking token recorded, so a token's views, clicks and conversions stay within their
        // bound on every instance (tracking.ts TrackingLimiter); link_id 0 for views.
        await db.schema
          .createTable("tracking_limits")
          .addColumn("sending_id", "bigint", (c) => c.notNull())
          .addColumn("subscriber_id", "bigint", (c) => c.notNull())
          .addColumn("link_id", "bigint", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("window_start", "bigint", (c) => c.notNull())
          .addColumn("window_count", "integer", (c) => c.notNull())
          .addColumn("total", "integer", (c) => c.notNull())
          .addPrimaryKeyConstraint("tracking_limits_pk", ["sending_id", "subscriber_id", "link_id", "kind"])
          .execute();
      },
    },
    "0011_bounces": {
      async up(db: AnyDb) {
        // Bounces and complaints (service/app/bounces.ts): a report names a message by its Message-ID,
        // and what came back is one row per message and kind.
        await db.schema.alterTable("mail_outbox").addColumn("message_id", "text").execute();
        await db.schema
          .createIndex("mail_outbox_message_id")
          .on("mail_outbox")
          .column("message_id")
          .execute();
        await idColumn(db, "mail_events")
          .addColumn("account_id", "bigint", (c) => c.notNull())
          .addColumn("mail_id", "bigint", (c) => c.notNull())
          .addColumn("sending_id", "bigint")
          .addColumn("subscriber_id", "bigint")
          .addColumn("email_key", "text", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("source", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("detail", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addUniqueConstraint("mail_events_mail_kind", ["mail_id", "kind"])
          .execute();
        await db.schema
          .createIndex("mail_events_address")
          .on("mail_events")
          .columns(["account_id", "email_key", "kind", "created_at"])
          .execute();
        await db.schema.createIndex("mail_events_sending").on("mail_events").column("sending_id").execute();
      },
    },
  };
}

class CodeMigrations implements MigrationProvider {
  constructor(private readonly engine: Engine) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return codeMigrations(this.engine);
  }
}

/** Applies every migration not applied yet; throws with the failing migration's name. */
export async function migrate(db: AnyDb, engine: Engine): Promise<string[]> {
  // Unordered: the security round's migrations (0007 to 0011) land in any order, so a database may have
  // a later one applied before an earlier one arrives; none depends on another.
  const migrator = new Migrator({ db, provider: new CodeMigrations(engine), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error !== undefined) {
    const what = failed ? `migration ${failed.migrationName} failed` : "migrations failed";
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
