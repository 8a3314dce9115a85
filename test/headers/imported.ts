// A construct fixture's recorded WSDL (test/asmx-host/recorded/constructs/<Service>/service.wsdl) taken
// through `easgen import` and `easgen generate` into a temporary folder, with the generated server and
// client loaded: what the tests of this folder run against the real ASMX host, both ways.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { generateCommand } from "../../generator/commands.js";
import { importToYaml } from "../../generator/import/index.js";
import type { ImportedSpec } from "../../generator/import/wsdl.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Inside the repository, so the generated code resolves node_modules as the project does. */
const TEMP_ROOT = path.join(HERE, ".tmp");
export const RECORDED = path.resolve(HERE, "../asmx-host/recorded/constructs");

export type ClientMethod = (params?: unknown, options?: Record<string, unknown>) => Promise<unknown>;

export interface Imported {
  readonly spec: ImportedSpec;
  readonly yaml: string;
  readonly warnings: readonly string[];
  readonly createClient: (config: Record<string, unknown>) => Record<string, ClientMethod>;
  readonly createServer: (impl: object) => Server;
  readonly dir: string;
  /** Removes the temporary folder. */
  cleanUp(): void;
}

/**
 * Imports and generates the recorded WSDL of a construct fixture; `edit` changes the imported YAML first
 * (the hand edits a spec gets after import), `editWsdl` the WSDL before the import.
 */
export async function importConstruct(
  service: string,
  edit?: (yaml: string) => string,
  editWsdl?: (wsdl: string) => string,
): Promise<Imported> {
  mkdirSync(TEMP_ROOT, { recursive: true });
  const dir = mkdtempSync(path.join(TEMP_ROOT, `${service}-`));
  let wsdlFile = path.join(RECORDED, service, "service.wsdl");
  if (editWsdl !== undefined) {
    const edited = path.join(dir, "service.wsdl");
    writeFileSync(edited, editWsdl(readFileSync(wsdlFile, "utf8")));
    wsdlFile = edited;
  }
  const imported = await importToYaml(wsdlFile);
  const specFile = path.join(dir, `${service}.yaml`);
  writeFileSync(specFile, edit === undefined ? imported.yaml : edit(imported.yaml));
  const lines: string[] = [];
  const code = await generateCommand(
    { spec: specFile, out: path.join(dir, "out") },
    { out: (l) => lines.push(l), err: (l) => lines.push(l) },
  );
  if (code !== 0) throw new Error(`generate failed:\n${lines.join("\n")}\n${readFileSync(specFile, "utf8")}`);
  const server = (await import(pathToFileURL(path.join(dir, "out", "server.ts")).href)) as {
    createServer(impl: object): Server;
  };
  const client = (await import(pathToFileURL(path.join(dir, "out", "client.ts")).href)) as {
    createClient(config: Record<string, unknown>): Record<string, ClientMethod>;
  };
  return {
    spec: imported.spec,
    yaml: imported.yaml,
    warnings: imported.warnings,
    createClient: client.createClient,
    createServer: server.createServer,
    dir,
    cleanUp: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Listens on loopback; resolves to the base URL (`http://127.0.0.1:<port>/`). */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

export async function close(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A construct imported and served by our generated server for a test file's tests (its own hooks). */
export interface ServedConstruct {
  /** The import (set before the file's first test). */
  readonly imported: Imported;
  /** Our server's base URL (`http://127.0.0.1:<port>/`). */
  readonly ours: string;
  /** Our WSDL and the host's recorded one. */
  wsdls(): Promise<{ ours: string; theirs: string }>;
}

/**
 * Imports `service`'s recorded WSDL and serves it with `handlers` from the file's beforeAll to its
 * afterAll (then the server is closed and the temporary folder removed).
 */
export function serveConstruct(service: string, handlers: object): ServedConstruct {
  let imported: Imported | undefined;
  let server: Server | undefined;
  let ours = "";
  beforeAll(async () => {
    imported = await importConstruct(service);
    server = imported.createServer(handlers);
    ours = await listen(server);
  }, 300_000);
  afterAll(async () => {
    await close(server);
    imported?.cleanUp();
  }, 30_000);
  return {
    get imported() {
      if (imported === undefined) throw new Error(`${service} is not imported yet (use it inside a test)`);
      return imported;
    },
    get ours() {
      return ours;
    },
    async wsdls() {
      return {
        ours: await (await fetch(`${ours}${service}.asmx?WSDL`)).text(),
        theirs: readFileSync(path.join(RECORDED, service, "service.wsdl"), "utf8"),
      };
    },
  };
}
