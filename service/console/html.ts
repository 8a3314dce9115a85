// The console's HTML: a tagged template that escapes every interpolated value unless it is already
// Html (made by this template or by `trusted` for the few fixed strings of our own), so a subscriber's
// name, a template's text or a link can never become markup.

/** Markup the console made itself: interpolated as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text safe in element content and in quoted attribute values. */
function escapeText(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Value = Html | string | number | bigint | boolean | null | undefined | readonly Value[];

function piece(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(piece).join("");
  return escapeText(String(value));
}

/** html`<p>${name}</p>`: every value escaped (arrays joined, null/undefined/false left out). */
export function html(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new Html(out);
}
