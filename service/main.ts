// `npm start [-- --role api|worker|all]`: reads the configuration from the environment, opens (creating
// and migrating) the database, serves the API and runs the workers; SIGTERM or Ctrl-C drains and exits.

import { parseArgs } from "node:util";
import { createApp } from "./app.js";
import { ServiceConfigError, type Role, helpText, readConfig } from "./config.js";

async function main(argv: string[]): Promise<number> {
  let role: Role = "all";
  try {
    const { values } = parseArgs({
      args: argv,
      options: { role: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(helpText());
      return 0;
    }
    if (values.role !== undefined) {
      if (values.role !== "api" && values.role !== "worker" && values.role !== "all") {
        throw new ServiceConfigError(`--role must be api, worker or all; it is "${values.role}".`);
      }
      role = values.role;
    }
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\nTry: npm start -- --help\n`,
    );
    return 2;
  }
  let app;
  try {
    app = await createApp(readConfig(process.env, role));
  } catch (error) {
    process.stderr.write(`Cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { url, metricsUrl } = await app.start();
  app.logger.info(
    {
      role,
      database: app.store.displayUrl,
      url: url === undefined ? undefined : `${url}/ExternalAPIService.asmx`,
      metrics: metricsUrl === undefined ? undefined : `${metricsUrl}/metrics`,
    },
    "service started",
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      app.logger.info({ signal }, "stopping: draining requests and jobs");
      resolve();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  await app.close();
  app.logger.info("stopped");
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Fatal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
