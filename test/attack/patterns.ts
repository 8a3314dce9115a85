// Pattern rules against catastrophic backtracking (the attack suite's "patterns" section). Two halves:
//
// - validate: a spec whose pattern backtracks catastrophically is refused, naming an attack value. The
//   issue's `^(\w|\d)+$` passed the old home-grown check, and one 28-character HTTP GET value then held the
//   event loop for 15.5 s.
// - the server: a service generated from a spec holding the strictest patterns validate still admits (linear,
//   but with the most backtracking per character recheck allows) runs in a child process; each pattern gets
//   its hostile value (the shape that makes it backtrack, as long as the runtime lets a pattern see:
//   PATTERN_MAX_CHARACTERS) over HTTP GET, and a 1 MiB one over HTTP POST. The child's largest event-loop
//   stall while answering must stay under 50 ms.

import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadModel, generateFiles } from "../../generator/generate.js";
import { writeOutput } from "../../generator/output.js";
import { PATTERN_MAX_CHARACTERS } from "../../runtime/codec/rules.js";
import { AttackChild } from "./child.js";
import { exchangeOnce } from "./connection.js";
import { ms, type Row } from "./report.js";

/** The event-loop time one hostile value may take, answer included. */
const STALL_LIMIT_MS = 50;

/** Patterns that were accepted before recheck and must be refused now, with why. */
const REFUSED = [
  { pattern: "^(\\w|\\d)+$", why: "exponential: the issue's pattern" },
  { pattern: "^(a+)+$", why: "exponential" },
  { pattern: "^[^@]+@[^@]+\\.[^@]+$", why: "quadratic" },
  { pattern: "^(\\w+\\s?)*$", why: "exponential" },
] as const;

/** Linear patterns with much backtracking per character, each with the value that makes them work hardest. */
const STRICTEST = [
  {
    name: "mail",
    pattern: "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$",
    hostile: (n: number) => `${"a".repeat(n - 1)}@`,
  },
  {
    name: "dotted",
    pattern: "^[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+$",
    hostile: (n: number) => `a@${"a.".repeat(Math.floor((n - 3) / 2))}@`,
  },
  {
    name: "words",
    pattern: "^([a-z]+-)*[a-z]+$",
    hostile: (n: number) => `${"a-".repeat(Math.floor((n - 1) / 2))}!`,
  },
  {
    name: "dotted quad",
    pattern: "^\\d{1,3}(\\.\\d{1,3}){3}$",
    hostile: (n: number) => "1.".repeat(Math.floor(n / 2)),
  },
] as const;

function spec(rules: readonly { name: string; pattern: string }[]): string {
  const yaml = (pattern: string): string => JSON.stringify(pattern);
  return [
    "service:",
    "  name: Patterns",
    "  namespace: http://example.com/patterns/",
    "  endpoint: Patterns.asmx",
    "  doc: Pattern rules under attack.",
    "rules:",
    ...rules.flatMap((r) => [
      `  ${r.name.replace(/\W/g, "")}:`,
      "    kind: pattern",
      `    pattern: ${yaml(r.pattern)}`,
      "    doc: A pattern.",
    ]),
    "groups:",
    "  - name: checks",
    "    title: Checks",
    "    operations:",
    ...rules.flatMap((r) => [
      `      - name: Check${r.name.replace(/\W/g, "")}`,
      "        doc: Checks one value.",
      "        params:",
      `          - { name: value, type: string, required: true, rules: [${r.name.replace(/\W/g, "")}], doc: The value. }`,
      "        result: { type: int, doc: Its length. }",
    ]),
    "",
  ].join("\n");
}

function tempFolder(): string {
  const dir = path.join(tmpdir(), `easgen-patterns-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function patternsSection(rows: Row[]): Promise<void> {
  const dir = tempFolder();
  // validate: each formerly accepted evil pattern is refused, with an attack value.
  for (const evil of REFUSED) {
    const file = path.join(dir, `refused-${REFUSED.indexOf(evil)}.yaml`);
    writeFileSync(file, spec([{ name: "evil", pattern: evil.pattern }]));
    const started = performance.now();
    const loaded = loadModel({ spec: file });
    const messages = loaded.ok ? [] : loaded.diagnostics.map((d) => d.message);
    const refused = messages.some((m) =>
      /can take (exponential|polynomial) time.* as on the value \S/.test(m),
    );
    rows.push({
      attack: `validate: pattern ${evil.pattern} (${evil.why})`,
      requests: "-",
      outcome: refused ? "refused with an attack value" : loaded.ok ? "ACCEPTED" : "refused otherwise",
      measured: `${messages[0]?.replace(/^rule "evil": /, "").slice(0, 120) ?? "no diagnostic"}; ${ms(performance.now() - started)}`,
      target: "refused at validate, naming an attack value",
      pass: refused,
      details: messages,
    });
  }

  // The server: the strictest admitted patterns, a hostile value each.
  const specFile = path.join(dir, "Patterns.yaml");
  writeFileSync(specFile, spec(STRICTEST));
  const generated = await generateFiles({ spec: specFile });
  if (!generated.ok)
    throw new Error(
      `the patterns spec does not validate: ${generated.diagnostics.map((d) => d.message).join("; ")}`,
    );
  const out = path.join(dir, "generated");
  writeOutput(out, generated.files);
  const child = await AttackChild.start({
    mode: "patterns",
    dir: out,
    operations: STRICTEST.map((r) => `Check${r.name.replace(/\W/g, "")}`),
  });
  try {
    // One honest call first: the first request also loads and compiles the server's code.
    await exchangeOnce(
      child.port,
      Buffer.from(
        "GET /Patterns.asmx/Checkwords?value=a-b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      ),
      { timeoutMs: 30_000 },
    );
    for (const rule of STRICTEST) {
      const op = `Check${rule.name.replace(/\W/g, "")}`;
      const value = rule.hostile(PATTERN_MAX_CHARACTERS);
      const get = `GET /Patterns.asmx/${op}?value=${encodeURIComponent(value)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
      const big = `value=${encodeURIComponent(rule.hostile(1024 * 1024))}`;
      const post = `POST /Patterns.asmx/${op} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(big)}\r\nConnection: close\r\n\r\n${big}`;
      for (const [how, request, length] of [
        ["GET", get, value.length],
        ["POST", post, 1024 * 1024],
      ] as const) {
        const before = await child.stats(true);
        const answer = await exchangeOnce(child.port, Buffer.from(request), { timeoutMs: 30_000 });
        const after = await child.stats();
        const stall = after?.maxStallMs ?? Number.POSITIVE_INFINITY;
        // CPU time, not the wall-clock stall, is the pass line: on this shared 2-core machine the child can
        // be descheduled mid-request, which the stall counts and the CPU time does not.
        const cpu = before && after ? after.cpuMs - before.cpuMs : Number.POSITIVE_INFINITY;
        const status = answer.kind === "answer" ? answer.status : answer.kind;
        // The messages of InvalidFormat (the pattern refused the value) and TooLong (too long to be matched).
        const body = answer.kind === "answer" ? answer.body.toString("utf8") : "";
        const code = /must match the pattern/.test(body)
          ? "InvalidFormat"
          : /to be matched against its pattern/.test(body)
            ? "TooLong"
            : undefined;
        rows.push({
          attack: `server: pattern ${rule.pattern}, hostile ${length.toLocaleString("en")}-character value by HTTP ${how}`,
          requests: 1,
          outcome: `answered ${status}${code ? ` ${code}` : ""}`,
          measured: `server CPU ${ms(cpu)} (request read, decoded, matched, answered); event-loop stall ${ms(stall)}${answer.kind === "answer" ? `; answered in ${ms(answer.ms)}` : ""}`,
          target: `answered 500 InvalidFormat or TooLong, CPU <= ${STALL_LIMIT_MS} ms`,
          pass:
            child.alive &&
            answer.kind === "answer" &&
            answer.status === 500 &&
            code !== undefined &&
            cpu <= STALL_LIMIT_MS,
        });
      }
    }
  } finally {
    await child.stop();
  }
}
