// What the shadow proxy stores of an exchange (reports, recorded cases) never holds a credential: the spec's
// credential parameters and the config's secret names are replaced by "[redacted]" in XML elements, in
// query strings and forms, and the headers that carry credentials (Authorization, Cookie, …) lose their
// values. Linear in the input: one pass of a bounded regular expression per body.

import type { ShadowConfig } from "./config.js";

export const REDACTED = "[redacted]";

/** Headers whose values are credentials or sessions. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]);

export interface Redactor {
  readonly names: ReadonlySet<string>;
  /** An XML or text body with every secret element's text replaced. */
  xml(text: string): string;
  /** A query string or form body (without "?") with every secret parameter's value replaced. */
  form(text: string): string;
  /** A path and query, the query redacted. */
  url(url: string): string;
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  /** A request body by its content type. */
  body(text: string, contentType: string | undefined): string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The spec's credential parameters and the config's secrets. */
export function secretNames(config: Pick<ShadowConfig, "model" | "secrets">): Set<string> {
  const names = new Set(config.secrets);
  for (const op of config.model.operations) for (const p of op.params) if (p.credential) names.add(p.name);
  return names;
}

export function createRedactor(names: ReadonlySet<string>): Redactor {
  const alternatives = [...names].map(escapeRegExp).join("|");
  // <p:name attrs>text</p:name>: the text (no markup inside) is replaced; an element with children is left
  // as it is, its secret leaves are found on their own.
  const element =
    alternatives === ""
      ? undefined
      : new RegExp(`(<((?:[A-Za-z_][\\w.-]*:)?(?:${alternatives}))(?:\\s[^<>]*)?>)([^<]*)(</\\2\\s*>)`, "g");
  const lowerNames = new Set([...names].map((n) => n.toLowerCase()));
  const form = (text: string): string =>
    text
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=");
        const rawName = eq < 0 ? pair : pair.slice(0, eq);
        let name: string;
        try {
          name = decodeURIComponent(rawName.replace(/\+/g, " "));
        } catch {
          name = rawName;
        }
        // ASMX matches HTTP parameter names ignoring case.
        return lowerNames.has(name.toLowerCase()) ? `${rawName}=${encodeURIComponent(REDACTED)}` : pair;
      })
      .join("&");
  const xml = (text: string): string =>
    element === undefined
      ? text
      : text.replace(element, (_m, open: string, _n, _t, close: string) => `${open}${REDACTED}${close}`);
  return {
    names,
    xml,
    form,
    url: (url) => {
      const q = url.indexOf("?");
      return q < 0 ? url : `${url.slice(0, q + 1)}${form(url.slice(q + 1))}`;
    },
    headers: (headers) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers))
        out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
      return out;
    },
    body: (text, contentType) =>
      /^\s*application\/x-www-form-urlencoded/i.test(contentType ?? "") ? form(text) : xml(text),
  };
}
