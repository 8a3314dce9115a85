// `npm start [-- --role api|worker|all | --help]`: the service as a deployed server runs it, plain JavaScript
// with no TypeScript loader in the process. service/main.ts and every module of this project it imports are
// bundled by esbuild (node_modules stay imports) into one ES module under dist/service/, named by a hash of
// its text, and imported here; the next start with the same sources reuses that file.
//
// Why not `node --import tsx service/main.ts` (which `npm run admin` still uses): tsx keeps function names
// by wrapping every named function expression in a defineProperty call, about 0.4 µs each time one is made,
// and the service makes several per request; the loader also holds ~35 MiB more memory. The bundle is the
// same code, types removed, not minified: stack traces name the same functions, and the file holds an
// inline source map for `node --enable-source-maps service/start.mjs`.
//
// Safe when instances start together: a bundle is written to a temporary name and renamed into place, so
// no instance imports a half-written file. Bundles older than a day, other than the one in use, are removed.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT_DIR = path.join(ROOT, "dist", "service");
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * Bundles `entry` (a .ts file of this project) into dist/service/<name>-<hash>.mjs unless that file exists,
 * and returns its path.
 */
export async function bundleEntry(entry, name) {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [path.resolve(ROOT, entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    write: false,
    outdir: OUT_DIR,
    logLevel: "error",
  });
  const text = result.outputFiles[0].contents;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const file = path.join(OUT_DIR, `${name}-${hash}.mjs`);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  if (!fs.existsSync(file)) {
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, file);
  }
  prune(name, file);
  return file;
}

/** Removes this entry's bundles (and stray temporary files) older than KEEP_MS, except `current`. */
function prune(name, current) {
  const now = Date.now();
  for (const entry of fs.readdirSync(OUT_DIR)) {
    if (!entry.startsWith(`${name}-`)) continue;
    const file = path.join(OUT_DIR, entry);
    if (file === current) continue;
    try {
      if (now - fs.statSync(file).mtimeMs > KEEP_MS) fs.rmSync(file, { force: true });
    } catch {
      // Removed meanwhile by another instance.
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  let file;
  try {
    file = await bundleEntry("service/main.ts", "main");
  } catch (error) {
    process.stderr.write(
      `Cannot start: building the service failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  await import(pathToFileURL(file).href);
}
