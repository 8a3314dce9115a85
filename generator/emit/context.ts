// What every emitter gets besides the model.

import type { ServiceDocTexts } from "../../runtime/server/docs.js";
import type { FileExtension } from "../config.js";

export interface EmitContext {
  /** The spec's doc texts (the model carries none): JSDoc of the types, the WSDL, the help pages, docs.ts. */
  readonly docs: ServiceDocTexts;
  /** The spec as named in headers: relative to the repository root, such as spec/ExternalAPIService.yaml. */
  readonly specFile: string;
  /** Absolute path of templates/ (the handlebars templates). */
  readonly templatesDir: string;
  /** Base URL ending in "/" of the addresses in the static {Service}.wsdl; default http://localhost/. */
  readonly wsdlAddress?: string;
  /** Absolute path of runtime/ (the hand-written runtime, copied into the output whole). */
  readonly runtimeDir: string;
  /** The spec's extension module: its absolute path, and the path as the spec writes it. */
  readonly extensions?: { readonly path: string; readonly module: string };
  /** Only the client and the files it imports (select.ts). */
  readonly clientOnly?: boolean;
  /** The TypeScript files' extension (default .ts; .mts: select.ts renames them). */
  readonly fileExtension?: FileExtension;
}
