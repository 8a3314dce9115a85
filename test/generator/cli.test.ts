import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO } from "./fixtures/index.js";

/** The real entry point in a child process, as `npm run <command>` runs it. */
function easgen(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "generator/cli.ts", ...args], {
    cwd: REPO,
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("easgen cli", () => {
  it.each(["validate", "generate", "check"])("%s --help describes the command and its options", (command) => {
    const { status, stdout } = easgen(command, "--help");
    expect(status).toBe(0);
    expect(stdout).toContain(`easgen ${command}`);
    expect(stdout).toContain("--spec");
    expect(stdout).toContain("--namespace");
    if (command !== "validate") expect(stdout).toContain("--out");
  });

  it("exits 1 without a command or with a bad --namespace", () => {
    expect(easgen().status).toBe(1);
    const { status, stderr } = easgen("validate", "--namespace", "not a uri");
    expect(status).toBe(1);
    expect(stderr).toContain("--namespace must be an absolute URI");
  });

  it("validate exits 1 on a broken spec, naming file:line:col", () => {
    const { status, stderr } = easgen("validate", "--spec", "test/generator/fixtures/missing.yaml");
    expect(status).toBe(1);
    expect(stderr).toContain("test/generator/fixtures/missing.yaml:1:1 cannot read the spec (ENOENT)");
  });
});
