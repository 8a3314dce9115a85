// The console's static files: its own stylesheet and scripts (service/console/static/) and uPlot, the chart
// library, from its npm package (pinned in service/package.json). Read once, kept in memory (a few KB each).

import { readFile } from "node:fs/promises";
import type http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const OWN = fileURLToPath(new URL("./static/", import.meta.url));

const FILES: Readonly<Record<string, readonly [path: () => string, type: string]>> = {
  "console.css": [() => `${OWN}console.css`, "text/css; charset=utf-8"],
  "console.js": [() => `${OWN}console.js`, "text/javascript; charset=utf-8"],
  "uplot.js": [() => require.resolve("uplot/dist/uPlot.iife.min.js"), "text/javascript; charset=utf-8"],
  "uplot.css": [() => require.resolve("uplot/dist/uPlot.min.css"), "text/css; charset=utf-8"],
};

const loaded = new Map<string, Promise<Buffer>>();

export async function serveStatic(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  name: string,
): Promise<void> {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (file === undefined) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
    res.end(req.method === "HEAD" ? undefined : "Not found.\n");
    return;
  }
  let body = loaded.get(name);
  if (body === undefined) {
    body = readFile(file[0]());
    loaded.set(name, body);
    body.catch(() => loaded.delete(name));
  }
  const bytes = await body;
  res.writeHead(200, {
    "content-type": file[1],
    "content-length": bytes.length,
    "cache-control": "public, max-age=300",
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
  });
  res.end(req.method === "HEAD" ? undefined : bytes);
}
