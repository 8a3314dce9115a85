// One benchmark server per process: `node servers.mjs <floor|floor-list|list-build|ours|node-soap>`
// (bench/run.ts bundles this file first, so the server process carries no TypeScript loader; `node
// --import tsx` works as well).
// Listens on 127.0.0.1 (ephemeral port), reports the port to the parent over IPC, and exits when the
// parent goes away (IPC disconnect), so no server outlives `npm run bench`. Each kind imports only
// what it needs: the floor process loads no generated code.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import type { ExternalAPIService } from "../generated/server.js";
import { FLOOR_RESPONSE, ROI_ROWS, SID, TRIGGER_MARKUP, triggerRecords } from "./wire.js";

type Kind = "floor" | "floor-list" | "list-build" | "ours" | "node-soap" | "shadow";

/** A raw node:http server that reads each request's whole body, then calls `answer`. */
function afterBody(answer: (res: http.ServerResponse) => void): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      Buffer.concat(chunks);
      answer(res);
    });
  });
}

/** The reference: reads the whole body, answers a fixed, pre-encoded SOAP response. Nothing else. */
function floorServer(body: Buffer): http.Server {
  return afterBody((res) => {
    res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-length": body.length });
    res.end(body);
  });
}

/**
 * The least a list answer built in JavaScript costs: the x100 answer (`answer`, the exact bytes ours sends)
 * made again for every request from the handler's records by bare string concatenation (no checks, no
 * escaping, the request not read), then sent as our node adapter sends a body: Buffer.byteLength, which
 * flattens the string, and one `end` with the header. Ours does the same after reading the request and
 * checking every value; the gap between the two rows is that work.
 */
function listBuildServer(answer: string): http.Server {
  const first = answer.indexOf("<TriggerResult>");
  const end = answer.lastIndexOf("</TriggerResult>") + "</TriggerResult>".length;
  if (first < 0 || end < first) throw new Error("the list answer holds no TriggerResult records");
  const head = answer.slice(0, first);
  const tail = answer.slice(end);
  const records = triggerRecords();
  const [b0, b1, b2, b3, b4, b5] = TRIGGER_MARKUP;
  return afterBody((res) => {
    let xml = "";
    for (const r of records) {
      xml +=
        b0 +
        String(r.Id) +
        b1 +
        r.Name +
        b2 +
        r.Created +
        b3 +
        String(r.MailinglistId) +
        b4 +
        r.MailinglistName +
        b5;
    }
    const body = head + xml + tail;
    const length = Buffer.byteLength(body, "utf8");
    res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-length": length });
    res.end(body, length === body.length ? "latin1" : "utf8");
  });
}

/** Our generated server; every operation answers a constant. */
async function oursServer(): Promise<http.Server> {
  const { createHandler } = await import("../generated/server.js");
  const { operations } = await import("../generated/model.js");
  const triggers = triggerRecords();
  const impl: Record<string, unknown> = {};
  for (const name of Object.keys(operations))
    impl[name] = () => Promise.reject(new Error(`${name} is not benchmarked`));
  impl.InsertSubscriberSid = () => SID;
  impl.GetTriggerIdForAccount = () => triggers;
  impl.GetRoiResults = () => ROI_ROWS;
  return http.createServer(createHandler(impl as unknown as ExternalAPIService, { log: () => {} }));
}

/** node-soap with its defaults, serving the generated WSDL; InsertSubscriberSid answers the same constant. */
async function nodeSoapServer(): Promise<http.Server> {
  const soap = await import("soap");
  const server = http.createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  const wsdl = readFileSync(
    process.env.EAS_BENCH_WSDL ?? new URL("../generated/ExternalAPIService.wsdl", import.meta.url),
    "utf8",
  );
  const port = {
    InsertSubscriberSid: () => ({ InsertSubscriberSidResult: SID.toString() }),
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: portNumber } = server.address() as AddressInfo;
  const xml = wsdl.replaceAll(
    "http://localhost/ExternalAPIService.asmx",
    `http://127.0.0.1:${portNumber}/ExternalAPIService.asmx`,
  );
  const services = { ExternalAPIService: { ExternalAPIServiceSoap: port, ExternalAPIServiceSoap12: port } };
  await new Promise<void>((resolve, reject) => {
    soap.listen(server, {
      path: "/ExternalAPIService.asmx",
      services,
      xml,
      callback: (err: unknown) => (err ? reject(err) : resolve()),
    });
  });
  return server;
}

async function main(): Promise<void> {
  const kind = process.argv[2] as Kind;
  if (!process.send)
    throw new Error("bench/servers.ts must be started by bench/run.ts (it reports over IPC).");
  process.on("disconnect", () => process.exit(0));
  let server: http.Server;
  if (kind === "floor") server = floorServer(Buffer.from(FLOOR_RESPONSE, "utf8"));
  else if (kind === "floor-list") server = floorServer(readFileSync(process.env.EAS_BENCH_BODY ?? ""));
  else if (kind === "list-build")
    server = listBuildServer(readFileSync(process.env.EAS_BENCH_BODY ?? "", "utf8"));
  else if (kind === "ours") server = await oursServer();
  else if (kind === "node-soap") server = await nodeSoapServer();
  else if (kind === "shadow") {
    // The shadow proxy (easgen shadow) with the config text in EAS_SHADOW_CONFIG; it listens itself.
    const { parseShadowConfig } = await import("../generator/shadow/config.js");
    const { startShadowProxy } = await import("../generator/shadow/proxy.js");
    const config = parseShadowConfig(process.env.EAS_SHADOW_CONFIG ?? "", "bench-shadow.yaml", process.cwd());
    const proxy = await startShadowProxy(config);
    process.send({ port: Number(new URL(proxy.url).port), metrics: proxy.metricsUrl });
    return;
  } else throw new Error(`unknown server kind ${String(kind)}`);
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.keepAliveTimeout = 60_000;
  const { port } = server.address() as AddressInfo;
  process.send({ port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
