// Starts the ASMX host by hand: `npx tsx test/asmx-host/serve.ts [services-folder]` (default: the fixture
// services). Prints the URL and the host's own output (ASP.NET's recorded errors among it), serves until
// Ctrl-C (or until its standard input closes).

import { resolve } from "node:path";
import { FIXTURE_SERVICES, startAsmxHost } from "./host.js";

const services = process.argv[2] ? resolve(process.argv[2]) : FIXTURE_SERVICES;
const started = Date.now();
const host = await startAsmxHost({ services, echo: true });
console.log(
  `ASMX host over ${services} listening on ${host.url} (ready in ${Date.now() - started} ms); Ctrl-C stops it`,
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await host.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
process.stdin.on("end", stop).resume();
