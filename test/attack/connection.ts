// A bare keep-alive HTTP/1.1 connection for the attack suite: writes request bytes exactly as given (no
// client library repairs them) and reads the answer with a strict little parser, so "the server closed
// without answering" and "the answer is not HTTP" can be told apart from a refusal.

import net from "node:net";

export interface Answer {
  readonly kind: "answer";
  readonly status: number;
  /** Lower-case names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The server said `Connection: close` or ended the body by closing. */
  readonly closes: boolean;
  /** Milliseconds from the request's last byte written to the answer's last byte. */
  readonly ms: number;
}

export interface NoAnswer {
  readonly kind: "closed" | "timeout" | "garbled";
  /** Bytes of answer received before the connection closed or time ran out. */
  readonly received: number;
  readonly detail: string;
  readonly ms: number;
}

export type Outcome = Answer | NoAnswer;

const HEAD_END = Buffer.from("\r\n\r\n");

type Parsed = { answer: Omit<Answer, "ms">; used: number } | { need: true } | { garbled: string };

/** Parses one answer at the start of `buf`; `eof`: the connection has closed. */
function parseAnswer(buf: Buffer, eof: boolean, noBody: boolean): Parsed {
  let offset = 0;
  for (;;) {
    const end = buf.indexOf(HEAD_END, offset);
    if (end < 0) return buf.length - offset > 64 * 1024 ? { garbled: "head over 64 KiB" } : { need: true };
    const lines = buf.subarray(offset, end).toString("latin1").split("\r\n");
    const status = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? "");
    if (!status) return { garbled: `status line ${JSON.stringify((lines[0] ?? "").slice(0, 60))}` };
    const code = Number(status[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) return { garbled: `header line ${JSON.stringify(line.slice(0, 60))}` };
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4;
    if (code === 100) {
      offset = bodyStart; // an interim answer: the real one follows
      continue;
    }
    const closes = (headers["connection"] ?? "").toLowerCase() === "close";
    if (noBody || code === 204 || code === 304) {
      return {
        answer: { kind: "answer", status: code, headers, body: Buffer.alloc(0), closes },
        used: bodyStart,
      };
    }
    if ((headers["transfer-encoding"] ?? "").toLowerCase() === "chunked") {
      const chunks: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", at);
        if (lineEnd < 0) return { need: true };
        const size = parseInt(buf.subarray(at, lineEnd).toString("latin1"), 16);
        if (!Number.isFinite(size) || size < 0) return { garbled: "bad chunk size" };
        if (buf.length < lineEnd + 2 + size + 2) return { need: true };
        if (size === 0) {
          // The last chunk's line, any trailers, then an empty line: "0\r\n\r\n" at its shortest.
          const end = buf.indexOf(HEAD_END, lineEnd);
          if (end < 0) return { need: true };
          return {
            answer: { kind: "answer", status: code, headers, body: Buffer.concat(chunks), closes },
            used: end + 4,
          };
        }
        chunks.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
    }
    const lengthText = headers["content-length"];
    if (lengthText !== undefined) {
      if (!/^\d+$/.test(lengthText)) return { garbled: `content-length ${JSON.stringify(lengthText)}` };
      const length = Number(lengthText);
      if (buf.length < bodyStart + length) return { need: true };
      return {
        answer: {
          kind: "answer",
          status: code,
          headers,
          body: buf.subarray(bodyStart, bodyStart + length),
          closes,
        },
        used: bodyStart + length,
      };
    }
    // No framing: the body runs to the end of the connection.
    if (!eof) return { need: true };
    return {
      answer: { kind: "answer", status: code, headers, body: buf.subarray(bodyStart), closes: true },
      used: buf.length,
    };
  }
}

interface Waiter {
  readonly resolve: (outcome: Outcome) => void;
  readonly noBody: boolean;
  readonly timer: NodeJS.Timeout;
  sentAt: number;
}

export class RawConnection {
  private readonly socket: net.Socket;
  private buf: Buffer = Buffer.alloc(0);
  private waiter: Waiter | undefined;
  private ended = false;
  /** False once the connection closed or an answer asked to close it: open a new one. */
  get usable(): boolean {
    return !this.ended && !this.closing;
  }
  private closing = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
      this.settle(false);
    });
    socket.on("error", () => {}); // resets surface as "close"
    socket.on("close", () => {
      this.ended = true;
      this.settle(true);
    });
  }

  static open(port: number, host = "127.0.0.1"): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host);
      socket.setNoDelay(true);
      socket.once("connect", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  /**
   * Writes `request` (its pieces in order, `paceMs` apart for a slow sender) and resolves with the next
   * answer, or why there is none. `noBody`: the answer to a HEAD has no body.
   */
  exchange(
    request: Buffer | readonly Buffer[],
    options: { timeoutMs: number; noBody?: boolean; paceMs?: number },
  ): Promise<Outcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          this.finish({
            kind: "timeout",
            received: this.buf.length,
            detail: `no answer in ${options.timeoutMs} ms`,
            ms: 0,
          }),
        options.timeoutMs,
      );
      this.waiter = { resolve, noBody: options.noBody === true, timer, sentAt: performance.now() };
      const pieces = Buffer.isBuffer(request) ? [request] : request;
      this.writing = this.write(pieces, options.paceMs ?? 0);
    });
  }

  private writing: Promise<void> = Promise.resolve();

  /** Resolves once the current request's last byte has been handed to the socket (or it closed). */
  written(): Promise<void> {
    return this.writing;
  }

  private async write(pieces: readonly Buffer[], paceMs: number): Promise<void> {
    for (const piece of pieces) {
      if (this.ended || this.socket.destroyed) return;
      if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
      if (!this.socket.write(piece))
        await new Promise((r) => {
          this.socket.once("drain", r);
          this.socket.once("close", r);
        });
    }
    if (this.waiter) this.waiter.sentAt = performance.now();
  }

  private settle(eof: boolean): void {
    const waiter = this.waiter;
    if (!waiter) return;
    const parsed = parseAnswer(this.buf, eof, waiter.noBody);
    if ("answer" in parsed) {
      this.buf = this.buf.subarray(parsed.used);
      if (parsed.answer.closes) this.closing = true;
      this.finish({ ...parsed.answer, ms: performance.now() - waiter.sentAt });
    } else if ("garbled" in parsed) {
      this.closing = true;
      this.finish({
        kind: "garbled",
        received: this.buf.length,
        detail: parsed.garbled,
        ms: performance.now() - waiter.sentAt,
      });
    } else if (eof) {
      this.finish({
        kind: "closed",
        received: this.buf.length,
        detail: this.buf.length === 0 ? "closed with 0 bytes" : "closed mid-answer",
        ms: performance.now() - waiter.sentAt,
      });
    }
  }

  private finish(outcome: Outcome): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    clearTimeout(waiter.timer);
    if (outcome.kind === "timeout") this.closing = true;
    waiter.resolve(outcome);
  }

  /** Writes more bytes on the connection as they are (a slow body's next piece), unless it has closed. */
  send(bytes: Buffer): void {
    if (!this.ended && !this.socket.destroyed) this.socket.write(bytes);
  }

  /** Bytes received that belong to no request (a second answer to one request, say). */
  get leftover(): number {
    return this.buf.length;
  }

  close(): void {
    this.closing = true;
    this.socket.destroy();
  }
}

/** One request on a fresh connection, closed afterwards. */
export async function exchangeOnce(
  port: number,
  request: Buffer | readonly Buffer[],
  options: { timeoutMs: number; noBody?: boolean; paceMs?: number },
): Promise<Outcome> {
  const connection = await RawConnection.open(port);
  try {
    return await connection.exchange(request, options);
  } finally {
    connection.close();
  }
}
