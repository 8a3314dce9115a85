// `easgen shadow --config shadow.yaml`: the shadow proxy as its config says, until SIGINT or SIGTERM.
// A command of easgen rather than a mode of the generated server: in mirror mode the legacy host answers
// and our server is only compared, so the proxy must run in front of either, for any spec, without our
// server's code; it needs the spec alone (operations, bindings, credentials, which operations write).

import { UsageError, UserError, type CommandSpec, type Io } from "../cli-command.js";
import { loadShadowConfig, ShadowConfigError, type ShadowConfig } from "./config.js";
import { startShadowProxy, type Exchange, type ShadowProxy } from "./proxy.js";
import { createRecorder } from "./record.js";
import { createReport, type Report } from "./report.js";

function readConfig(file: string): ShadowConfig {
  try {
    return loadShadowConfig(file);
  } catch (error) {
    if (error instanceof ShadowConfigError) throw new UserError(error.message);
    throw error;
  }
}

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** Starts the proxy with its report, prints where it listens, and runs until `stop` resolves. */
export async function runShadow(
  config: ShadowConfig,
  io: Io,
  stop: Promise<unknown>,
  extra: { readonly collectAll?: boolean; readonly exchange?: (exchange: Exchange) => void } = {},
): Promise<{ proxy: ShadowProxy; report: Report | undefined }> {
  const report = config.report.dir === undefined ? undefined : createReport(config);
  let proxy: ShadowProxy;
  try {
    proxy = await startShadowProxy(config, {
      ...(extra.collectAll === undefined ? {} : { collectAll: extra.collectAll }),
      observer: {
        ...(report ? { comparison: (c) => report.add(c) } : {}),
        ...(extra.exchange ? { exchange: extra.exchange } : {}),
      },
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE" || e.code === "EACCES" || e.code === "EADDRNOTAVAIL") {
      throw new UserError(`cannot listen on ${config.listen.host}:${config.listen.port} (${e.code})`);
    }
    throw error;
  }
  const [answering, compared] = config.mode === "mirror" ? ["legacy", "ours"] : ["ours", "legacy"];
  const comparedUrl = config.mode === "mirror" ? config.ours : config.legacy;
  io.out(
    `shadow: ${config.mode} mode on ${proxy.url}${new URL(config.mode === "mirror" ? config.legacy : config.ours!).pathname}`,
  );
  io.out(`  answering: ${answering} ${(config.mode === "mirror" ? config.legacy : config.ours!).href}`);
  io.out(
    comparedUrl
      ? `  compared:  ${compared} ${comparedUrl.href} (mirror: ${config.mirror})`
      : "  compared:  none",
  );
  if (proxy.metricsUrl) io.out(`  metrics:   ${proxy.metricsUrl}`);
  if (report) io.out(`  report:    ${report.dir} (divergences.jsonl, report.html, stats.json)`);
  report?.start(proxy);
  await stop;
  await proxy.close();
  await report?.close(proxy);
  return { proxy, report };
}

export const shadowCommandSpec: CommandSpec = {
  name: "shadow",
  describe:
    "Run the shadow proxy its config file describes: answer from the legacy host (mirror) or ours (cutover), compare the other's answers, report divergences",
  options: {
    config: {
      type: "string",
      value: "shadow.yaml",
      required: true,
      describe: "The proxy's config file (docs/migration.md)",
    },
  },
  run: async (args, io) => {
    const config = readConfig(args["config"] as string);
    await runShadow(
      config,
      io,
      stopSignal().then((signal) => io.out(`shadow: ${signal}, stopping`)),
    );
    return 0;
  },
};

export const recordCommandSpec: CommandSpec = {
  name: "record",
  describe:
    "Run the shadow proxy and write each operation exchange of the answering host into a folder of conformance cases, redacted, for npm run conformance -- --cases",
  options: {
    config: {
      type: "string",
      value: "shadow.yaml",
      required: true,
      describe: "The proxy's config file (docs/migration.md)",
    },
    out: {
      type: "string",
      value: "dir",
      required: true,
      describe: "The folder the cases go to (one YAML file a case)",
    },
    "max-cases": { type: "number", value: "n", default: 1000, describe: "Most cases written in all" },
    "per-operation": {
      type: "number",
      value: "n",
      default: 20,
      describe: "Most cases per operation and binding",
    },
  },
  check: (args) => {
    for (const name of ["max-cases", "per-operation"]) {
      const value = args[name] as number;
      if (!(Number.isInteger(value) && value > 0))
        throw new UsageError(`--${name} must be a positive number of cases, not ${value}`);
    }
  },
  run: async (args, io) => {
    const config = readConfig(args["config"] as string);
    const out = args["out"] as string;
    const recorder = createRecorder(config, out, {
      maxCases: args["max-cases"] as number,
      perOperation: args["per-operation"] as number,
    });
    io.out(`record: writing cases into ${out}`);
    await runShadow(
      config,
      io,
      stopSignal().then((signal) => io.out(`record: ${signal}, stopping`)),
      {
        collectAll: true,
        exchange: (e) => recorder.add(e),
      },
    );
    io.out(`record: ${recorder.written()} cases in ${out}`);
    return 0;
  },
};
