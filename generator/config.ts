// easgen.config.json (or .mjs/.js): the spec, output folder and options a project always passes, so
// `easgen generate` and `easgen check` need no flags. Found in the working directory, or named by --config.
// Paths in it are relative to the file's own folder; command-line flags override it.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** What a config file may hold; every key optional. */
export interface EasgenConfig {
  /** The spec YAML, relative to the config file. */
  readonly spec?: string;
  /** The output folder, relative to the config file. Default: generated. */
  readonly out?: string;
  /** Replaces the spec's XML namespace (an absolute URI). */
  readonly namespace?: string;
  /** Base URL written into the static {Service}.wsdl's addresses. Default: http://localhost/. */
  readonly wsdlAddress?: string;
  /** Only the client: no server, WSDL or help pages; needs neither Node's types nor the DOM's. */
  readonly clientOnly?: boolean;
  /** ".mts" writes every TypeScript file as .mts with .mjs specifiers (ES modules whatever package.json says). */
  readonly fileExtension?: FileExtension;
}

/** The extensions the TypeScript files may be written with. */
export const FILE_EXTENSIONS = [".ts", ".mts"] as const;
export type FileExtension = (typeof FILE_EXTENSIONS)[number];

/** The names looked for in the working directory, in this order. */
export const CONFIG_FILES = ["easgen.config.json", "easgen.config.mjs", "easgen.config.js"] as const;

/** A config with its paths resolved (absolute), and the file it came from. */
export interface LoadedConfig {
  /** Absolute path of the config file, or undefined when there is none. */
  readonly file: string | undefined;
  readonly spec?: string;
  readonly out?: string;
  readonly namespace?: string;
  readonly wsdlAddress?: string;
  readonly clientOnly?: boolean;
  readonly fileExtension?: FileExtension;
}

/** A config file that cannot be used; the message names the file and, where one is at fault, the key. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly key: string | undefined,
    message: string,
  ) {
    super(`${file}: ${key === undefined ? "" : `"${key}" `}${message}`);
    this.name = "ConfigError";
  }
}

export const NAMESPACE_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;
const ADDRESS_PATTERN = /^https?:\/\/[^\s/?#]+\/(?:[^\s?#]*\/)?$/;

const KEYS: Readonly<Record<keyof EasgenConfig | "$schema", string>> = {
  $schema: "a string",
  spec: "a path to the spec YAML",
  out: "a path to the output folder",
  namespace: "an absolute URI such as http://tempuri.org/",
  wsdlAddress: "an http(s) base URL ending in /, such as https://api.example.com/services/",
  clientOnly: "true or false",
  fileExtension: '".ts" or ".mts"',
};

/**
 * The config named by `file` (relative to cwd), else the first of CONFIG_FILES in cwd, else an empty config.
 * Throws ConfigError for a missing named file, unreadable or invalid content, an unknown key or a bad value.
 */
export async function loadConfig(
  options: { readonly file?: string | undefined; readonly cwd?: string } = {},
): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  let file: string | undefined;
  if (options.file !== undefined) {
    file = path.resolve(cwd, options.file);
    if (!existsSync(file)) throw new ConfigError(shown(file, cwd), undefined, "no such file (--config)");
  } else {
    file = CONFIG_FILES.map((name) => path.join(cwd, name)).find((candidate) => existsSync(candidate));
  }
  if (file === undefined) return { file: undefined };
  const name = shown(file, cwd);
  const raw = await readConfig(file, name);
  return { file, ...checkConfig(raw, name, path.dirname(file)) };
}

async function readConfig(file: string, name: string): Promise<unknown> {
  if (file.endsWith(".json")) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new ConfigError(
        name,
        undefined,
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new ConfigError(name, undefined, `is not valid JSON (${(error as Error).message})`);
    }
  }
  if (file.endsWith(".js") || file.endsWith(".mjs")) {
    let loaded: { default?: unknown };
    try {
      loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (error) {
      throw new ConfigError(name, undefined, `failed to load (${(error as Error).message})`);
    }
    if (loaded.default === undefined) throw new ConfigError(name, undefined, "has no default export");
    return loaded.default;
  }
  throw new ConfigError(name, undefined, "must end in .json, .mjs or .js");
}

function checkConfig(raw: unknown, name: string, dir: string): Omit<LoadedConfig, "file"> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(name, undefined, 'must hold an object such as { "spec": "spec/Service.yaml" }');
  }
  const config: {
    spec?: string;
    out?: string;
    namespace?: string;
    wsdlAddress?: string;
    clientOnly?: boolean;
    fileExtension?: FileExtension;
  } = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!Object.hasOwn(KEYS, key)) {
      throw new ConfigError(name, key, `is not a config key; known keys: ${Object.keys(KEYS).join(", ")}`);
    }
    const want = KEYS[key as keyof typeof KEYS];
    if (key === "clientOnly") {
      if (typeof value !== "boolean")
        throw new ConfigError(name, key, `must be ${want}, not ${JSON.stringify(value) ?? String(value)}`);
      config.clientOnly = value;
      continue;
    }
    if (typeof value !== "string" || value === "") {
      throw new ConfigError(name, key, `must be ${want}, not ${JSON.stringify(value) ?? String(value)}`);
    }
    switch (key) {
      case "spec":
      case "out":
        config[key] = path.resolve(dir, value);
        break;
      case "namespace":
        if (!NAMESPACE_PATTERN.test(value))
          throw new ConfigError(name, key, `must be ${want}, not "${value}"`);
        config.namespace = value;
        break;
      case "wsdlAddress":
        if (!ADDRESS_PATTERN.test(value)) throw new ConfigError(name, key, `must be ${want}, not "${value}"`);
        config.wsdlAddress = value;
        break;
      case "fileExtension":
        if (!isFileExtension(value)) throw new ConfigError(name, key, `must be ${want}, not "${value}"`);
        config.fileExtension = value;
        break;
    }
  }
  return config;
}

export function isFileExtension(value: string): value is FileExtension {
  return (FILE_EXTENSIONS as readonly string[]).includes(value);
}

/** Checks a --wsdl-address value; undefined when it is fine, else what it must be. */
export function wsdlAddressProblem(value: string): string | undefined {
  return ADDRESS_PATTERN.test(value) ? undefined : KEYS.wsdlAddress;
}

function shown(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return (relative.startsWith("..") || path.isAbsolute(relative) ? file : relative).split(path.sep).join("/");
}
