// The construct fixtures (constructs/): one small ASMX service per construct that public services use and
// the importer must face (SOAP headers, derived types, nullables, DataSets, overloads, XML attributes,
// xs:any, unwrapped arrays, enums, HTTP details, [SoapDocumentMethod] variants). See constructs/README.md.

import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_CACHE, run } from "./host.js";

/** The construct services' folder as committed. */
const CONSTRUCTS = fileURLToPath(new URL("./constructs/", import.meta.url));

/** The services, by .asmx name (without the extension), in the order the docs list them. */
export const CONSTRUCT_SERVICES = [
  "SoapHeaders",
  "DerivedTypes",
  "Nullables",
  "DataSets",
  "Overloads",
  "XmlAttributes",
  "AnyXml",
  "UnwrappedArrays",
  "Enums",
  "HttpDetails",
  "DocumentMethods",
  "OutParams",
] as const;
export type ConstructService = (typeof CONSTRUCT_SERVICES)[number];

const XSD_TOOL = "/usr/bin/xsd";

/** Stands for the host's URL (http://127.0.0.1:<port>/) in the recordings, which must not depend on the port. */
export const HOST_PLACEHOLDER = "http://asmx-host.test/";

/**
 * The folder to hand to startAsmxHost: a copy of constructs/ whose App_Code also holds the typed DataSet
 * class Mono's `xsd /dataset` makes from constructs/typed/Inventory.xsd (Mono's ASP.NET hangs compiling an
 * .xsd in App_Code itself). Made once per process in the git-ignored build cache.
 */
let prepared: Promise<string> | undefined;
export function prepareConstructs(): Promise<string> {
  prepared ??= (async () => {
    mkdirSync(BUILD_CACHE, { recursive: true });
    const dir = mkdtempSync(join(BUILD_CACHE, "constructs-"));
    const app = join(dir, "app");
    cpSync(CONSTRUCTS, app, {
      recursive: true,
      filter: (src) => !src.includes(`${join(CONSTRUCTS, "typed")}`),
    });
    const out = join(dir, "xsd");
    mkdirSync(out);
    const result = await run(
      XSD_TOOL,
      [join(CONSTRUCTS, "typed", "Inventory.xsd"), "/dataset", "/language:CS", `/outputdir:${out}`],
      { timeoutMs: 120_000 },
    );
    const generated = join(out, "Inventory.cs");
    if (result.code !== 0 || !existsSync(generated))
      throw new Error(`xsd /dataset failed (exit ${result.code}):\n${result.stdout}${result.stderr}`);
    renameSync(generated, join(app, "App_Code", "Inventory.cs"));
    rmSync(out, { recursive: true, force: true });
    return app;
  })();
  return prepared;
}
