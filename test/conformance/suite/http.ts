// Sends a reference request's exact bytes with node:http(s): the headers given, Content-Length of the
// body, nothing else a fetch implementation would add.

import http from "node:http";
import https from "node:https";
import type { ReferenceAnswer } from "../reference/errors.js";
import type { ReferenceRequest } from "../reference/request.js";

export function sendRequest(
  endpointUrl: string,
  request: ReferenceRequest,
  timeoutMs = 30_000,
): Promise<ReferenceAnswer> {
  const url = new URL(endpointUrl + request.path + (request.query ? `?${request.query}` : ""));
  const body = Buffer.from(request.body, "utf8");
  const headers: Record<string, string | number> = { ...request.headers };
  if (request.method !== "GET" || body.length > 0) headers["content-length"] = body.length;
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      { method: request.method, headers, agent: false, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: flat,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body.length > 0 ? body : undefined);
  });
}
