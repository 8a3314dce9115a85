// Reads the WSDL to import from a file or an http(s) URL, bounded in size and (for URLs) in time.

import { open } from "node:fs/promises";
import path from "node:path";
import { ImportError } from "./wsdl.js";

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface SourceOptions {
  /** Largest WSDL accepted, in bytes (default 10 MiB). */
  readonly maxBytes?: number | undefined;
  /** Time allowed for a URL's whole answer, body included (default 30 s). */
  readonly timeoutMs?: number | undefined;
}

export interface Source {
  readonly text: string;
  /** How messages and the placeholder doc name the source: the file's base name or the URL. */
  readonly label: string;
}

function isUrl(source: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source);
}

export async function readSource(source: string, options: SourceOptions = {}): Promise<Source> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (isUrl(source)) {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      throw new ImportError(
        `${source}: not a URL that can be read (a file path has no scheme; a URL is http://host/path)`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ImportError(
        `${source}: only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}`,
      );
    }
    if (url.username !== "" || url.password !== "") {
      throw new ImportError(
        `${url.origin}${url.pathname}: a URL with a user name or password is not accepted`,
      );
    }
    const label = url.href;
    const bytes = await fetchBounded(url, maxBytes, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return { text: decode(bytes, label), label };
  }
  const label = path.basename(source);
  let handle;
  try {
    handle = await open(source, "r");
  } catch (e) {
    throw new ImportError(
      `${source}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ImportError(`${source}: not a file`);
    if (stat.size > maxBytes)
      throw new ImportError(`${source}: ${stat.size} bytes, over the limit of ${maxBytes}`);
    // Read at most maxBytes + 1, so a file growing meanwhile is still bounded.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) throw new ImportError(`${source}: over the limit of ${maxBytes} bytes`);
    return { text: decode(buffer.subarray(0, length), label), label };
  } finally {
    await handle.close();
  }
}

async function fetchBounded(url: URL, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  const shown = `${url.origin}${url.pathname}${url.search}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      signal,
      redirect: "follow",
      headers: { accept: "text/xml, application/xml, */*" },
    });
  } catch (e) {
    throw new ImportError(
      `${shown}: ${signal.aborted ? `no answer within ${timeoutMs} ms` : `cannot fetch (${causeOf(e)})`}`,
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImportError(`${shown}: the server answered HTTP ${response.status}, not 200`);
  }
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImportError(`${shown}: the answer is ${declared} bytes, over the limit of ${maxBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ImportError(`${shown}: the answer is over the limit of ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(
      `${shown}: ${signal.aborted ? `the answer did not complete within ${timeoutMs} ms` : `reading the answer failed (${causeOf(e)})`}`,
    );
  }
  return Buffer.concat(chunks, total);
}

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
}

/** UTF-8 (BOM optional) or UTF-16 with a BOM; anything else is refused rather than misread. */
function decode(bytes: Uint8Array, label: string): string {
  let text: string;
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe)
      text = new TextDecoder("utf-16le", { fatal: true }).decode(bytes.subarray(2));
    else if (bytes[0] === 0xfe && bytes[1] === 0xff)
      text = new TextDecoder("utf-16be", { fatal: true }).decode(bytes.subarray(2));
    else text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(`${label}: the document is not valid UTF-8 (or UTF-16 with a byte order mark)`);
  }
  const declared = /^\uFEFF?<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/
    .exec(text)?.[1]
    ?.toLowerCase();
  if (
    declared !== undefined &&
    declared !== "utf-8" &&
    declared !== "utf8" &&
    !declared.startsWith("utf-16")
  ) {
    throw new ImportError(
      `${label}: the document declares encoding ${declared}; only UTF-8 and UTF-16 are read`,
    );
  }
  return text;
}
