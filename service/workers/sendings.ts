// The sending worker: delivers each scheduled sending (operations/mailing/sendings.ts SendNewsletter, or a
// trigger's) exactly once per recipient.
//
// - The worker claims a due sending under a lease (PostgreSQL: FOR UPDATE SKIP LOCKED, so several
//   instances share the queue). Expansion goes a page of members at a time, each page a transaction: the
//   list's active members whose address is not opted out and who match the sending's filter (evaluated
//   in code) become sending_recipients rows (insert-or-ignore on (sending, subscriber)); the sending is
//   `expanding` meanwhile (a claim after a crash goes on from its highest recipient) and becomes `sending`
//   with its count after the last page. No step holds more than a page or a batch of recipients, so a
//   list of a million members takes the memory of one.
//   Then batches: one transaction each first renews the lease `WHERE lease_owner = me` (0 rows: the
//   lease was lost, nothing is written), takes queued recipients, re-checks each (still an active member,
//   not opted out: else `skipped`), renders each one's mail, then writes the batch together: its tracked
//   links in one go, its mails in one multi-row insert, its recipients marked sent with their mails' ids in
//   one statement (a few round trips a batch on PostgreSQL, not three a recipient).
//   The mail row and the recipient's `sent` commit together, so a crash anywhere leaves every recipient
//   with exactly one mail row (or none yet, to be made by the next claim). Pending and unsubscribed
//   members and opted-out addresses never get one.
// - The renewal also requires the sending to be scheduled, expanding or sending: once a pause or cancel
//   (operations/mailing/sending-control.ts) has committed, the worker writes nothing more of it and stops.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Transaction } from "kysely";
import type { Store } from "../db/database.js";
import type { Database } from "../db/schema.js";
import { filterRule } from "../tables/filters.js";
import { mailableMembers } from "../tables/subscribers.js";
import {
  type ClaimedSending,
  addRecipients,
  claimSending,
  finishSending,
  lastRecipientId,
  markExpanded,
  markExpanding,
  markRecipientsSent,
  markRecipientsSkipped,
  queuedRecipients,
  renewSendingLease,
} from "../tables/sendings.js";
import { type MailInput, queueMails } from "../delivery/mail.js";
import {
  type FilterRule,
  type NewsletterContent,
  evaluateFilter,
  loadNewsletterContent,
  renderNewsletter,
} from "../operations/mailing/newsletters.js";
import { PollingWorker } from "./polling-worker.js";
import { unsubscribeKey } from "../operations/mailing/unsubscribe.js";
import { unsubscribeToken } from "../operations/mailing/unsubscribe.js";
import { LeaseLostError } from "./lease.js";
import type { TrackedHtml } from "../operations/mailing/tracking.js";

/**
 * Makes the HTML of a batch's recipients tracked (tracking.ts `prepareTrackingBatch`), each in the order
 * given; called for tracking all|roi.
 */
export type HtmlTracker = (
  trx: Transaction<Database>,
  sending: { accountId: number; sendingId: number; tracking: "all" | "roi" },
  items: readonly TrackedHtml[],
) => Promise<string[]>;

export interface SendingWorkerOptions {
  /** Base URL of the service as subscribers reach it (unsubscribe links). */
  readonly publicUrl: string;
  /** Message-ID domain. */
  readonly domain: string;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  /** Recipients per transaction (default 200). */
  readonly batchSize?: number;
  /** Members listed per transaction of an expansion (default 5,000). */
  readonly expandPage?: number;
  /** Names this worker in `lease_owner` (default host:pid:random). */
  readonly workerId?: string;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
  /** Told after a batch that queued mail committed (wakes the outbox worker). */
  readonly onMailQueued?: () => void;
  /**
   * Gives the function that rewrites each recipient's HTML for newsletters tracked `all` or `roi` (app.ts:
   * tracking.ts prepareTrackingBatch). Called outside any transaction (it may read the store: on SQLite a read
   * inside the batch's write transaction would wait for that transaction forever).
   */
  readonly tracker?: () => Promise<HtmlTracker>;
}

export class SendingWorker extends PollingWorker {
  readonly workerId: string;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private key: Buffer | undefined;
  private halting = false;

  constructor(
    private readonly store: Store,
    private readonly options: SendingWorkerOptions,
  ) {
    super("sendings", options);
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(6).toString("hex")}`;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = Math.max(1, options.batchSize ?? 200);
  }

  override start(): void {
    this.halting = false;
    super.start();
  }

  /** Stops after the batch in progress (its sending's lease runs out; the next claim goes on). */
  override async stop(): Promise<void> {
    this.halting = true;
    await super.stop();
  }

  /** Waits for a pass in progress, then works every sending due at `at` (default now) to its end. */
  async flush(at?: number): Promise<number> {
    return this.exclusive(() => this.drain(at));
  }

  protected pass(): Promise<number> {
    return this.drain();
  }

  private now(at?: number): number {
    return at ?? (this.options.now ?? Date.now)();
  }

  /** Claims and works due sendings until none is due; returns the recipients whose mail it queued. */
  async drain(at?: number): Promise<number> {
    let queued = 0;
    for (let round = 0; round < 1000; round++) {
      if (this.halting) break;
      const sending = await this.claim(this.now(at));
      if (sending === undefined) break;
      queued += await this.work(sending, at);
    }
    return queued;
  }

  private async claim(at: number): Promise<ClaimedSending | undefined> {
    const { db, engine } = this.store;
    const row = await claimSending(db, engine, this.workerId, at, at + this.leaseMs);
    if (row !== undefined)
      this.options.log?.({
        event: "sending.claimed",
        sending: row.id,
        worker: this.workerId,
        state: row.state,
      });
    return row;
  }

  /**
   * Renews the lease in `trx` (locking the sending row); LeaseLostError when another worker holds it now,
   * or the sending was paused or cancelled (operations/mailing/sending-control.ts): then nothing is written.
   */
  private async renew(trx: Transaction<Database>, id: number, at: number): Promise<void> {
    if (!(await renewSendingLease(trx, id, this.workerId, at + this.leaseMs)))
      throw new LeaseLostError(`sending ${id}`);
  }

  private async work(sending: ClaimedSending, at: number | undefined): Promise<number> {
    let lost = false;
    const heartbeat = setInterval(
      () => {
        renewSendingLease(this.store.db, sending.id, this.workerId, this.now(at) + this.leaseMs).then(
          (renewed) => {
            if (!renewed) lost = true;
          },
          (error: unknown) =>
            this.options.log?.({
              event: "sending.heartbeat_error",
              sending: sending.id,
              error: String(error),
            }),
        );
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    let queued = 0;
    try {
      const content = await loadNewsletterContent(this.store.db, sending.account_id, sending.newsletter_id);
      if (content === undefined) {
        await this.finish(sending.id, this.now(at));
        return 0;
      }
      if (sending.state !== "sending") await this.expand(sending, this.now(at));
      this.key ??= await unsubscribeKey(this.store.db);
      const track = content.newsletter.tracking === "no" ? undefined : await this.options.tracker?.();
      // The batches walk the recipients by subscriber id from the last one done (not from the first each
      // time: a batch reads its 200 rows, never the rows of every batch before it).
      let after = 0;
      for (let round = 0; round < 1_000_000 && !lost; round++) {
        if (this.halting) return queued; // stopping: the lease runs out and the next claim goes on
        const done = await this.batch(sending, content, this.now(at), track, after);
        if (done === undefined) break;
        queued += done.queued;
        after = done.last;
        if (done.queued > 0) this.options.onMailQueued?.();
      }
      if (!lost) await this.finish(sending.id, this.now(at));
      return queued;
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.options.log?.({ event: "sending.lease_lost", sending: sending.id, worker: this.workerId });
        return queued;
      }
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Lists the recipients a page of members at a time (expandPage), each page one transaction (the lease
   * renewed first), from where an earlier expansion of the sending stopped (a recipient row is
   * insert-or-ignore, so a page done twice adds nothing); the sending is `expanding` meanwhile and becomes
   * `sending` with its count after the last page. Only a page is held in memory, whatever the list's size.
   */
  private async expand(sending: ClaimedSending, at: number): Promise<void> {
    const { db } = this.store;
    const filter: FilterRule | undefined =
      sending.filter_id === null ? undefined : await filterRule(db, sending.filter_id);
    const pageSize = Math.max(1, this.options.expandPage ?? 5000);
    let after = await lastRecipientId(db, sending.id);
    for (let page = 0; page < 1_000_000; page++) {
      const next = await this.store.write(async (trx) => {
        await this.renew(trx, sending.id, at);
        if (page === 0) await markExpanding(trx, sending.id);
        const candidates = await mailableMembers(trx, sending.account_id, sending.list_id, {
          after,
          limit: pageSize,
        });
        const chosen =
          filter === undefined ? candidates : candidates.filter((c) => evaluateFilter(filter, c));
        await addRecipients(
          trx,
          { id: sending.id, accountId: sending.account_id },
          chosen.map((c) => c.id),
          at,
        );
        if (candidates.length < pageSize) {
          await markExpanded(trx, sending.id);
          return undefined;
        }
        return candidates[candidates.length - 1]!.id;
      });
      if (next === undefined) break;
      after = next;
    }
    this.options.log?.({ event: "sending.expanded", sending: sending.id });
  }

  /**
   * One batch in one transaction: the queued recipients after subscriber `after` (from the first again
   * when none is left after it: a trigger may have added one before it); how many got their mail and the
   * last subscriber id taken, undefined when no recipient is left queued.
   */
  private async batch(
    sending: ClaimedSending,
    content: NewsletterContent,
    at: number,
    track: HtmlTracker | undefined,
    after: number,
  ): Promise<{ queued: number; last: number } | undefined> {
    const key = this.key!;
    const base = this.options.publicUrl.replace(/\/$/, "");
    return this.store.write(async (trx) => {
      await this.renew(trx, sending.id, at);
      let rows = await queuedRecipients(trx, sending, this.batchSize, after);
      if (rows.length === 0 && after > 0) rows = await queuedRecipients(trx, sending, this.batchSize, 0);
      if (rows.length === 0) return undefined;
      // Rendered first, then written together: the links of the whole batch in one go, its mails in one
      // multi-row insert, its recipients marked sent in one statement (a few round trips a batch).
      const skipped: number[] = [];
      const chosen: {
        readonly r: (typeof rows)[number];
        readonly mail: MailInput;
        html: string | undefined;
      }[] = [];
      const tracking = content.newsletter.tracking;
      for (const r of rows) {
        if (!r.mailable) {
          skipped.push(r.id);
          continue;
        }
        const link = `${base}/u/${unsubscribeToken(key, sending.id, r.id, sending.list_id)}`;
        const rendered = renderNewsletter(
          content.template,
          content.newsletter,
          content.modules,
          r,
          new Map([
            ["unsubscribe", link],
            ["unsubscribe_all", `${link}/all`],
          ]),
        );
        const html: string | undefined =
          r.format.trim().toLowerCase() === "text" || content.template.html.trim() === ""
            ? undefined
            : rendered.html;
        const mail: MailInput = {
          accountId: sending.account_id,
          kind: "newsletter",
          from: { name: sending.from_name, address: sending.from_email },
          to: { name: r.name, address: r.email },
          subject: rendered.subject,
          text: rendered.text,
          html,
          headers: {
            "List-Unsubscribe": `<${link}>`,
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
          },
        };
        chosen.push({ r, mail, html });
      }
      const tracked = chosen.filter((c) => c.html !== undefined);
      if (tracking !== "no" && track !== undefined && tracked.length > 0) {
        const out = await track(
          trx,
          { accountId: sending.account_id, sendingId: sending.id, tracking },
          tracked.map((c) => ({ subscriberId: c.r.id, html: c.html! })),
        );
        tracked.forEach((c, k) => (c.html = out[k]));
      }
      const mailIds = await queueMails(
        trx,
        chosen.map((c) => ({ ...c.mail, html: c.html })),
        at,
        this.options.domain,
      );
      const marked = await markRecipientsSent(
        trx,
        sending.id,
        chosen.map((c, k) => ({ subscriberId: c.r.id, mailId: mailIds[k]! })),
      );
      if (!marked)
        throw new LeaseLostError(`sending ${sending.id}`, "a recipient of the batch was taken meanwhile");
      await markRecipientsSkipped(trx, sending.id, skipped);
      return { queued: chosen.length, last: rows[rows.length - 1]!.id };
    });
  }

  private async finish(id: number, at: number): Promise<void> {
    await finishSending(this.store.db, id, this.workerId, at);
    this.options.log?.({ event: "sending.done", sending: id, worker: this.workerId });
  }
}
