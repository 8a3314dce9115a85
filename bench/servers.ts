// One benchmark server per process: `node servers.mjs <floor|ours|node-soap>` (bench/run.ts bundles this
// file first, so the server process carries no TypeScript loader; `node --import tsx` works as well).
// Listens on 127.0.0.1 (ephemeral port), reports the port to the parent over IPC, and exits when the
// parent goes away (IPC disconnect), so no server outlives `npm run bench`. Each kind imports only
// what it needs: the floor process loads no generated code.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import type { ExternalAPIService } from "../generated/server.js";
import { FLOOR_RESPONSE, SID, triggerRecords } from "./wire.js";

type Kind = "floor" | "floor-list" | "ours" | "node-soap";

/** The reference: reads the whole body, answers a fixed, pre-encoded SOAP response. Nothing else. */
function floorServer(body: Buffer): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      Buffer.concat(chunks);
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-length": body.length });
      res.end(body);
    });
  });
}

/** Our generated server; every operation answers a constant. */
async function oursServer(): Promise<http.Server> {
  const { createHandler } = await import("../generated/server.js");
  const { operations } = await import("../generated/model.js");
  const triggers = triggerRecords();
  const impl: Record<string, unknown> = {};
  for (const name of Object.keys(operations)) impl[name] = () => Promise.reject(new Error(`${name} is not benchmarked`));
  impl.InsertSubscriberSid = () => SID;
  impl.GetTriggerIdForAccount = () => triggers;
  return http.createServer(createHandler(impl as unknown as ExternalAPIService, { log: () => {} }));
}

/** node-soap with its defaults, serving the generated WSDL; InsertSubscriberSid answers the same constant. */
async function nodeSoapServer(): Promise<http.Server> {
  const soap = await import("soap");
  const server = http.createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  const wsdl = readFileSync(process.env.EAS_BENCH_WSDL ?? new URL("../generated/ExternalAPIService.wsdl", import.meta.url), "utf8");
  const port = {
    InsertSubscriberSid: () => ({ InsertSubscriberSidResult: SID.toString() }),
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: portNumber } = server.address() as AddressInfo;
  const xml = wsdl.replaceAll("http://localhost/ExternalAPIService.asmx", `http://127.0.0.1:${portNumber}/ExternalAPIService.asmx`);
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
  if (!process.send) throw new Error("bench/servers.ts must be started by bench/run.ts (it reports over IPC).");
  process.on("disconnect", () => process.exit(0));
  let server: http.Server;
  if (kind === "floor") server = floorServer(Buffer.from(FLOOR_RESPONSE, "utf8"));
  else if (kind === "floor-list") server = floorServer(readFileSync(process.env.EAS_BENCH_BODY ?? ""));
  else if (kind === "ours") server = await oursServer();
  else if (kind === "node-soap") server = await nodeSoapServer();
  else throw new Error(`unknown server kind ${String(kind)}`);
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.keepAliveTimeout = 60_000;
  const { port } = server.address() as AddressInfo;
  process.send({ port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
