// Delivery of paid (queued) SMS, as the mail outbox delivers mail. By default each SMS becomes
// `<dir>/<id>.json` (sender, recipient, text, encoding, segments; 0600 in a 0700 folder), written to a
// temporary name and renamed (drop-folder.ts), so a reader never sees half a file and a crash before the
// row is marked sent rewrites the same file, never a second one; temporary files a killed process left
// are swept. With `url` (SMS_URL) each SMS is POSTed as that JSON to an HTTP gateway with
// an `Idempotency-Key: sms-<id>` header (a retry after a crash repeats the key, for the gateway to drop);
// a 2xx answer is delivered, a 4xx other than 408/429 is dead at once, anything else is retried with
// backoff and dead after maxAttempts. Waiting (unpaid) SMS are never touched here. An SMS whose number sent
// STOP after it was paid is not sent: it becomes `stopped` and its credits go back.

import { randomUUID } from "node:crypto";
import type { Store } from "../db/database.js";
import type { SmsMessage } from "../db/schema.js";
import { TemporarySweep, writeAtomically } from "../delivery/drop-folder.js";
import { claimDue, PollingWorker } from "./polling-worker.js";
import { refundSms, smsAddress } from "../operations/transactional/sms.js";
import { failClaimedSms, isStopped, markSmsSent, stopClaimedSms } from "../tables/sms.js";
import { PermanentDeliveryError } from "../delivery/errors.js";

export interface SmsOutboxOptions {
  /** Folder of the `.json` files (SMS_OUTBOX_DIR); used when `url` is not set. */
  readonly dir: string;
  /** HTTP gateway (SMS_URL): POST of the JSON instead of a file. */
  readonly url?: string | undefined;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  readonly maxAttempts?: number;
  /** Time allowed for one gateway request (default a third of the lease, 1 to 10 s, so it ends inside the lease). */
  readonly requestTimeoutMs?: number;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

/** What is written to the folder or posted to the gateway. */
export interface SmsDocument {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  readonly encoding: string;
  readonly segments: number;
  readonly createdAt: string;
}

function smsDocument(sms: SmsMessage): SmsDocument {
  return {
    id: sms.id,
    from: sms.sender_name,
    to: smsAddress(sms),
    text: sms.message,
    encoding: sms.encoding,
    segments: sms.segments,
    createdAt: new Date(sms.created_at).toISOString(),
  };
}

/** The owner prefix of the SMS worker's temporary names (`<id>.json.sms-<uuid>.tmp`). */
const SMS_OWNER_PREFIX = "sms-";

export class SmsWorker extends PollingWorker {
  private readonly owner = `${SMS_OWNER_PREFIX}${randomUUID()}`;
  private readonly sweep: TemporarySweep;

  constructor(
    private readonly store: Store,
    private readonly options: SmsOutboxOptions,
  ) {
    super("sms", options);
    const names = { finalName: "\\d+\\.json", ownerPrefix: SMS_OWNER_PREFIX };
    this.sweep = new TemporarySweep(
      options.dir,
      names,
      this.owner,
      options.leaseMs ?? 30_000,
      undefined,
      options.log,
    );
  }

  /** Waits for a pass in progress, then delivers whatever is still due (tests, the admin CLI). */
  async flush(): Promise<number> {
    return this.exclusive(() => this.drain(true));
  }

  protected async pass(): Promise<number> {
    if (this.options.url === undefined) await this.sweep.maybe(this.now());
    return this.drain();
  }

  /** Delivers every due SMS, one claimed batch at a time; returns the number delivered. */
  async drain(evenStopped = false): Promise<number> {
    let delivered = 0;
    // A gateway request may take its whole timeout: claim one at a time so a batch never outlives the lease.
    const batchSize = this.options.url === undefined ? 50 : 1;
    for (let round = 0; round < 100_000 && (evenStopped || !this.stopped); round++) {
      const batch = await this.claim(batchSize);
      if (batch.length === 0) break;
      for (const sms of batch) delivered += (await this.deliver(sms)) ? 1 : 0;
    }
    return delivered;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private claim(limit: number): Promise<SmsMessage[]> {
    return claimDue(
      this.store,
      "sms_messages",
      this.owner,
      limit,
      this.now(),
      this.options.leaseMs ?? 30_000,
    );
  }

  private async send(sms: SmsMessage): Promise<void> {
    const body = `${JSON.stringify(smsDocument(sms), null, 2)}\n`;
    if (this.options.url === undefined)
      return writeAtomically(this.options.dir, `${sms.id}.json`, body, this.owner);
    const response = await fetch(this.options.url, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `sms-${sms.id}` },
      body,
      redirect: "error",
      signal: AbortSignal.timeout(
        this.options.requestTimeoutMs ??
          Math.max(1000, Math.min(10_000, Math.floor((this.options.leaseMs ?? 30_000) / 3))),
      ),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return;
    const why = `the SMS gateway answered HTTP ${response.status}`;
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429)
      throw new PermanentDeliveryError(why);
    throw new Error(why);
  }

  /** A paid SMS whose number sent STOP since: stopped, not sent, its credits back. */
  private async stopSms(sms: SmsMessage): Promise<void> {
    const now = this.now();
    await this.store.write(async (trx) => {
      if (await stopClaimedSms(trx, sms.id, this.owner)) await refundSms(trx, this.store.engine, sms, now);
    });
    this.options.log?.({ msg: "sms stopped", smsId: sms.id });
  }

  private async deliver(sms: SmsMessage): Promise<boolean> {
    const { db } = this.store;
    if (await isStopped(db, sms.country_code, sms.phone_number)) {
      await this.stopSms(sms);
      return false;
    }
    try {
      await this.send(sms);
      await markSmsSent(db, sms.id, this.owner, sms.attempts + 1, this.now());
      return true;
    } catch (error) {
      const attempts = sms.attempts + 1;
      const dead = error instanceof PermanentDeliveryError || attempts >= (this.options.maxAttempts ?? 5);
      const now = this.now();
      await this.store.write(async (trx) => {
        const failed = await failClaimedSms(trx, sms.id, this.owner, {
          dead,
          attempts,
          nextAttemptAt: now + Math.min(3600_000, 1000 * 2 ** attempts),
          lastError: (error instanceof Error ? error.message : String(error)).slice(0, 500),
        });
        // A message that will never be delivered gives its credits back (once: only this update made it dead).
        if (dead && failed) await refundSms(trx, this.store.engine, sms, now);
      });
      this.options.log?.({ msg: "sms delivery failed", smsId: sms.id, attempts, dead });
      return false;
    }
  }
}
