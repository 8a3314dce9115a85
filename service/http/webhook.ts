// What the service's webhooks (POST /bounces, POST /sms/webhook) and its page forms share: a bearer token
// compared by its hash, a body read up to a limit, and a rate limit per remote address in a fixed one-minute
// window, kept for at most 10,000 addresses (the oldest forgotten first), so its memory is bounded whatever
// the peers do.

import { createHash, timingSafeEqual } from "node:crypto";
import type http from "node:http";

const MAX_TRACKED_SOURCES = 10_000;
const WINDOW_MS = 60_000;

/** Requests per source address per minute (fixed window), bounded memory. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly perMinute: number) {}

  /** True when `source` may go on now (and counts it). */
  take(source: string, now: number): boolean {
    let w = this.windows.get(source);
    if (w === undefined || now - w.start >= WINDOW_MS) {
      this.windows.delete(source);
      if (this.windows.size >= MAX_TRACKED_SOURCES) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      w = { start: now, count: 0 };
      this.windows.set(source, w);
    }
    w.count++;
    return w.count <= this.perMinute;
  }
}

export function tokenMatches(req: http.IncomingMessage, hash: Buffer): boolean {
  const m = /^Bearer\s+(\S{1,512})$/i.exec(req.headers.authorization ?? "");
  if (m === null) return false;
  return timingSafeEqual(createHash("sha256").update(m[1]!).digest(), hash);
}

/** Reads the body up to `max` bytes; undefined when it is longer (reading stops there). */
export function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > max) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: Buffer | undefined) => {
      req.off("data", data).off("end", end).off("error", failed).off("close", failed);
      resolve(value);
    };
    const data = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        done(undefined);
      } else chunks.push(chunk);
    };
    const end = () => done(Buffer.concat(chunks));
    const failed = () => done(undefined);
    req.on("data", data).on("end", end).on("error", failed).on("close", failed);
  });
}
