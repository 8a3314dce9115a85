// Passwords come from standard input only, never from the command line or the environment (both are
// visible to other users of the machine and kept in shell history). Piped: the first line. A terminal:
// a prompt on standard error without echo, asked twice.

import type { Readable, Writable } from "node:stream";
import { AdminError } from "./context.js";

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;
/** Bytes read from a pipe before the first line end at most (a password line is far shorter). */
const MAX_LINE_BYTES = 4 * MAX_PASSWORD + 2;

interface TtyInput {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

function isTty(stream: Readable): stream is Readable & Required<TtyInput> {
  const tty = stream as Readable & TtyInput;
  return tty.isTTY === true && typeof tty.setRawMode === "function";
}

/** The first line of a piped stream (without its line end), or undefined when the stream ends empty. */
function readFirstLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | undefined, line?: string) => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.pause();
      if (error !== undefined) reject(error);
      else resolve(line);
    };
    const text = () => Buffer.concat(chunks).toString("utf8");
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      const end = buffer.indexOf(0x0a);
      chunks.push(end === -1 ? buffer : buffer.subarray(0, end));
      size += buffer.length;
      if (end !== -1) finish(undefined, text());
      else if (size > MAX_LINE_BYTES)
        finish(new AdminError(`the password on standard input is longer than ${MAX_PASSWORD} characters`));
    };
    const onEnd = () => finish(undefined, size === 0 ? undefined : text());
    const onError = (error: Error) =>
      finish(new AdminError(`standard input could not be read: ${error.message}`));
    if (stream.readableEnded) {
      resolve(undefined);
      return;
    }
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.resume();
  });
}

/** Reads a line from a terminal in raw mode, echoing nothing; Ctrl-C cancels, Ctrl-D ends the input. */
function promptHidden(
  stdin: Readable & Required<TtyInput>,
  stderr: Writable,
  prompt: string,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let typed = "";
    stderr.write(prompt);
    stdin.setRawMode(true);
    const done = (error: Error | undefined, value?: string) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write("\n");
      if (error !== undefined) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const c of typeof chunk === "string" ? chunk : chunk.toString("utf8")) {
        if (c === "\r" || c === "\n") return done(undefined, typed);
        if (c === "\u0003") return done(new AdminError("cancelled (Ctrl-C) before a password was given"));
        if (c === "\u0004") return done(undefined, typed === "" ? undefined : typed);
        if (c === "\u007f" || c === "\b") typed = [...typed].slice(0, -1).join("");
        else if (c >= " ") typed += c;
        if (typed.length > MAX_PASSWORD)
          return done(new AdminError(`the password is longer than ${MAX_PASSWORD} characters`));
      }
    };
    stdin.on("data", onData);
    stdin.resume();
  });
}

/** Refuses a password that is missing, empty, shorter than 8 or longer than 1024 characters. */
function checkPassword(password: string | undefined): string {
  if (password === undefined) {
    throw new AdminError(
      "no password on standard input: pipe it in as the first line (it is never taken from the command line)",
    );
  }
  if (password === "")
    throw new AdminError("the password is empty: give at least 8 characters on standard input");
  const length = [...password].length;
  if (length < MIN_PASSWORD)
    throw new AdminError(`the password is too short: at least ${MIN_PASSWORD} characters, got ${length}`);
  if (length > MAX_PASSWORD) throw new AdminError(`the password is longer than ${MAX_PASSWORD} characters`);
  return password;
}

/**
 * The new password for `username`: from a terminal, prompted twice without echo; otherwise the first
 * line of standard input (a final CR is dropped, nothing else is trimmed). Checked by checkPassword.
 */
export async function readNewPassword(stdin: Readable, stderr: Writable, username: string): Promise<string> {
  if (isTty(stdin)) {
    const first = checkPassword(await promptHidden(stdin, stderr, `New password for ${username}: `));
    const again = await promptHidden(stdin, stderr, "Repeat the password: ");
    if (again !== first) throw new AdminError("the two passwords differ: nothing was changed");
    return first;
  }
  const line = await readFirstLine(stdin);
  return checkPassword(line?.replace(/\r$/, ""));
}
