// The service as a child process (`npm start`'s entry), for tests that kill it: started with its
// environment, its URL read from the "service started" log line, killed with any signal.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: Record<string, unknown>[];
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

const ROOT = new URL("../../../", import.meta.url).pathname;

export async function spawnService(
  env: Record<string, string>,
  args: string[] = [],
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ["service/start.mjs", ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 60 s: ${stderr}`)), 60_000);
    child.once("exit", (code) => reject(new Error(`the service exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      lines.push(parsed);
      if (parsed.msg === "service started") {
        clearTimeout(timer);
        resolve(String(parsed.url ?? ""));
      }
    });
  });
  return {
    child,
    url,
    lines,
    async kill(signal) {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
