// Paths into an answer, as the shadow proxy's config names volatile fields and its reports name the first
// difference. One syntax for both, so a path read in a report can be pasted into the config:
//
//   .                                  the operation's result itself (a generated id)
//   TriggerSubscriberClicksResult/ClickTime     below the result: local names, "/" between
//   TriggerSubscriberClicksResult[2]/ClickTime  the second element of that name among its siblings
//   */ClickTime                        "*" is any one element, "**" any number of them (none included)
//   diffgram/NewDataSet/Table/ViewTime a DataSet column
//   /Envelope/Header/Session           a leading "/" starts at the document's root instead of the result
//
// The result is what an operation returns whatever the binding: on SOAP the {Operation}Result element, on
// HTTP GET and POST the document's root element; so one path fits all four bindings.

/** One step: a local name or "*", and optionally which of the siblings of that name (1-based). */
export interface PathStep {
  readonly name: string;
  readonly index?: number;
}

export interface VolatilePath {
  readonly text: string;
  /** From the document's root rather than from the result. */
  readonly absolute: boolean;
  /** Steps; "**" as the string. */
  readonly steps: readonly (PathStep | "**")[];
}

/** One step of an element's own path: its local name and its position among same-named siblings. */
export interface ElementStep {
  readonly name: string;
  readonly index: number;
  /** Whether the element has same-named siblings (only then is the index shown). */
  readonly repeated: boolean;
}

const NCNAME = /^[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7\u00C0-\uFFFF]*$/;
const STEP = /^([^[\]]+)(?:\[(\d{1,6})\])?$/;
const MAX_STEPS = 64;

/** Parses a path of the config; a string is why it is not one. */
export function parseVolatilePath(text: string): VolatilePath | string {
  const trimmed = text.trim();
  if (trimmed === ".") return { text: trimmed, absolute: false, steps: [] };
  const absolute = trimmed.startsWith("/");
  const body = absolute ? trimmed.slice(1) : trimmed;
  if (body === "") return 'a path needs at least one step (use "." for the result itself)';
  const parts = body.split("/");
  if (parts.length > MAX_STEPS) return `a path has at most ${MAX_STEPS} steps`;
  const steps: (PathStep | "**")[] = [];
  for (const part of parts) {
    if (part === "**") {
      steps.push("**");
      continue;
    }
    const m = STEP.exec(part);
    if (!m || (m[1] !== "*" && !NCNAME.test(m[1]!))) {
      return `"${part}" is not a step: write an element's local name (no prefix), "*", "**" or name[n]`;
    }
    const index = m[2] === undefined ? undefined : Number(m[2]);
    if (index === 0) return `"${part}": positions count from 1`;
    steps.push(index === undefined ? { name: m[1]! } : { name: m[1]!, index });
  }
  return { text: trimmed, absolute, steps };
}

/** Whether `path` (an element's steps from the result, or from the root when absolute) is matched. */
export function pathMatches(rule: VolatilePath, path: readonly ElementStep[]): boolean {
  const steps = rule.steps;
  // reach[j]: steps[0, i) can match path[0, j). Rules and paths are short (config text, depth <= 32).
  let reach = new Array<boolean>(path.length + 1).fill(false);
  reach[0] = true;
  for (const step of steps) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    if (step === "**") {
      let any = false;
      for (let j = 0; j <= path.length; j++) {
        any ||= reach[j]!;
        next[j] = any;
      }
    } else {
      for (let j = 0; j < path.length; j++) {
        if (!reach[j]) continue;
        const el = path[j]!;
        if (
          (step.name === "*" || step.name === el.name) &&
          (step.index === undefined || step.index === el.index)
        ) {
          next[j + 1] = true;
        }
      }
    }
    reach = next;
  }
  return reach[path.length]!;
}

/** The text of an element path: "." for none, name[n] where the name repeats among siblings. */
export function formatPath(path: readonly ElementStep[], absolute: boolean): string {
  if (path.length === 0) return absolute ? "/" : ".";
  const text = path.map((s) => (s.repeated ? `${s.name}[${s.index}]` : s.name)).join("/");
  return absolute ? `/${text}` : text;
}
