// Prettier for emitted TypeScript. Options are fixed here, never read from a config file, so output does not
// depend on where the generator runs. Prettier runs in a worker thread, where it loads and warms up while the
// main thread validates the spec, loads ts-morph and emits; outputs are remembered (format-cache.ts). Both
// keep `generate` and `check` under 3 s.

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { FormatCache } from "./format-cache.js";
import { PACKAGE_FILES } from "./paths.js";
import type { GeneratedFile } from "./generated-file.js";

const TYPESCRIPT_OPTIONS = {
  parser: "typescript",
  printWidth: 110,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
} as const;

/** Formats a representative snippet first, so the JIT has compiled prettier's printer before real work. */
const WARM_UP = `export const a = { b: [{ c: "d", e: 1, f: [g.h] }] } as const satisfies T;
export interface I { /** Doc. */ j?: "k" | "l"; m: { n: O; p: Q<R> } }
export type S = T[];
`;

// Plain CommonJS, evaluated in the worker without tsx: it only needs prettier.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const prettier = import(workerData.prettier);
prettier.then((p) => p.format(workerData.warmUp, workerData.options)).catch(() => {});
parentPort.on("message", async ({ id, text }) => {
  try {
    const p = await prettier;
    parentPort.postMessage({ id, text: await p.format(text, workerData.options) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Reply {
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

const PRETTIER_VERSION = (createRequire(import.meta.url)("prettier/package.json") as { version: string })
  .version;
const CACHE_FILE = PACKAGE_FILES.formatCache;

let cache: FormatCache | undefined;

function formatCache(): FormatCache {
  cache ??= new FormatCache(
    CACHE_FILE,
    JSON.stringify({ prettier: PRETTIER_VERSION, options: TYPESCRIPT_OPTIONS }),
  );
  return cache;
}

/**
 * Starts prettier early so it is warm when the first file arrives, unless earlier runs' outputs are cached
 * (then most files will not need it, and it starts on the first that does). Idempotent.
 */
export function prepareFormatter(): void {
  if (!formatCache().warm) startFormatter();
}

/** Saves the outputs this run used, for the next run. */
export function saveFormatCache(): void {
  cache?.save();
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();

function startFormatter(): void {
  if (worker) return;
  const started = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: { prettier: import.meta.resolve("prettier"), options: TYPESCRIPT_OPTIONS, warmUp: WARM_UP },
  });
  started.on("message", (reply: Reply) => {
    const request = pending.get(reply.id);
    if (!request) return;
    pending.delete(reply.id);
    if (pending.size === 0) started.unref();
    if (reply.text !== undefined) request.resolve(reply.text);
    else request.reject(new Error(`prettier: ${reply.error ?? "no output"}`));
  });
  const fail = (error: Error): void => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    if (worker === started) worker = undefined;
  };
  started.on("error", fail);
  started.on("exit", (code) => fail(new Error(`prettier worker exited with code ${code}`)));
  // An idle formatter must not keep the process alive.
  started.unref();
  worker = started;
}

export async function formatTypeScript(text: string): Promise<string> {
  const cached = formatCache().get(text);
  if (cached !== undefined) return cached;
  const formatted = await formatInWorker(text);
  formatCache().set(text, formatted);
  return formatted;
}

function formatInWorker(text: string): Promise<string> {
  startFormatter();
  const current = worker!;
  const id = nextId++;
  current.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    current.postMessage({ id, text });
  });
}

/** Emitted TypeScript is formatted; copies of hand-written files and other kinds of file are left as they are. */
export async function formatFile(file: GeneratedFile): Promise<GeneratedFile> {
  if (file.copiedFrom !== undefined || !/\.(ts|mts|cts)$/.test(file.path)) return file;
  return { ...file, content: await formatTypeScript(file.content) };
}
