// ExternalAPIService's own rules, as an extension of the generic rules (see docs/spec.md, "Extension rules and checks"):
// the subscriber CSV of InsertCsvSubscribersWithDemDataUpdateOption and the DD<n> field lists of the
// demographic and transactional operations. The generator copies this file into the output as
// extensions.ts; the server's model (server-model.ts) imports the validators the spec names, so client
// bundles never carry them. The file imports nothing, so it type-checks wherever it is copied.

/** What a validator returns for a value it refuses: the client error the caller gets. */
export interface ExtensionProblem {
  /** The error code on the wire, such as InvalidCsv. */
  readonly code: string;
  /** One sentence, safe for the wire. */
  readonly message: string;
  /** The parameter the error is about; default: the rule's parameter, or the check's first one. */
  readonly parameter?: string;
}

type Options = Readonly<Record<string, unknown>>;

/** A list of non-empty strings from the spec's options, or an error naming the option. */
function stringListOption(options: Options, validator: string, key: string): readonly string[] {
  const value = options[key];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === "string" && item !== "")
  ) {
    throw new Error(`extension ${validator}: option ${key} must be a list of non-empty strings`);
  }
  return value as readonly string[];
}

/** A whole number of at least min from the spec's options (undefined when absent and optional), or an error naming it. */
function countOption(
  options: Options,
  validator: string,
  key: string,
  min: number,
  optional: true,
): number | undefined;
function countOption(options: Options, validator: string, key: string, min: number): number;
function countOption(
  options: Options,
  validator: string,
  key: string,
  min: number,
  optional = false,
): number | undefined {
  const value = options[key];
  if (value === undefined && optional) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new Error(`extension ${validator}: option ${key} must be a whole number of at least ${min}`);
  }
  return value;
}

/** `a, b or c`: how messages list names. */
function listInWords(items: readonly string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** Counts characters as code points, so an emoji is one character, not two UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) count++;
  }
  return count;
}

function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

// ---------------------------------------------------------------------------------------------------------
// Delimited subscriber rows, read in one linear pass: one row per line (LF or CRLF), blank lines
// skipped. With quoting on (the comma delimiter), fields follow RFC 4180: a field that starts with a
// double quote runs to the closing quote, `""` inside it is one quote, and it may hold the delimiter and
// line breaks. The wire rule and the service read rows with this one reader, so they agree on lines.

export interface CsvRow {
  /** 1-based line of the text on which the row starts. */
  readonly line: number;
  readonly fields: string[];
}

export interface CsvProblem {
  readonly line: number;
  readonly problem: string;
}

/** The delimiter of a text: the first of the candidates to occur in its first non-blank line. */
export function detectDelimiter(text: string, candidates: readonly string[]): string | undefined {
  const start = text.search(/\S/);
  if (start < 0) return undefined;
  const end = text.indexOf("\n", start);
  const first = text.slice(start, end < 0 ? text.length : end);
  let best: string | undefined;
  let bestAt = Infinity;
  for (const candidate of candidates) {
    const at = first.indexOf(candidate);
    if (at >= 0 && at < bestAt) {
      best = candidate;
      bestAt = at;
    }
  }
  return best;
}

/**
 * Yields each non-blank row; yields a CsvProblem (and stops) at a quoted field that is never closed or
 * is followed by text other than a delimiter or line end.
 */
export function* readCsvRows(
  text: string,
  delimiter: string,
  quoting: boolean,
): Generator<CsvRow | CsvProblem> {
  const n = text.length;
  // Next delimiter and next line feed at or after i, each found by one forward scan that only moves
  // on: the pass stays linear even for lines with no delimiter at all.
  let nextDelimiter = -1;
  let nextLf = -1;
  const delimiterFrom = (from: number): number => {
    if (nextDelimiter !== n && nextDelimiter < from) {
      nextDelimiter = text.indexOf(delimiter, from);
      if (nextDelimiter < 0) nextDelimiter = n;
    }
    return nextDelimiter;
  };
  const lfFrom = (from: number): number => {
    if (nextLf !== n && nextLf < from) {
      nextLf = text.indexOf("\n", from);
      if (nextLf < 0) nextLf = n;
    }
    return nextLf;
  };
  let i = 0;
  let line = 1;
  while (i < n) {
    const rowLine = line;
    const fields: string[] = [];
    let blank = true;
    // One row: fields until a line end or the end of the text.
    for (;;) {
      if (quoting && text.charCodeAt(i) === 34 /* " */) {
        blank = false;
        const open = i + 1;
        let value = "";
        let from = open;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            yield { line: rowLine, problem: "a quoted field is never closed" };
            return;
          }
          value += text.slice(from, q);
          if (text.charCodeAt(q + 1) === 34) {
            value += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        for (let at = lfFrom(open); at < i; at = lfFrom(at + 1)) line++;
        fields.push(value);
        if (text.startsWith(delimiter, i)) {
          i += delimiter.length;
          continue;
        }
        if (text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i++;
        if (i < n && text.charCodeAt(i) !== 10) {
          yield { line, problem: "a quoted field is followed by text before the next delimiter" };
          return;
        }
        break;
      }
      const end = lfFrom(i);
      const at = delimiterFrom(i);
      if (at < end) {
        fields.push(text.slice(i, at));
        blank = false;
        i = at + delimiter.length;
        continue;
      }
      let value = text.slice(i, end);
      if (value.endsWith("\r")) value = value.slice(0, -1);
      if (value.trim() !== "") blank = false;
      fields.push(value);
      i = end;
      break;
    }
    if (i < n) {
      i++; // the line feed
      line++;
    }
    if (!blank) yield { line: rowLine, fields };
  }
}

export function isCsvProblem(item: CsvRow | CsvProblem): item is CsvProblem {
  return "problem" in item;
}

/** Why a row of Email, Name, Format, dd1.. is not one, or undefined when it is. */
export function subscriberRowProblem(
  fields: readonly string[],
  delimiter: string,
  maxDemographicFields: number,
): string | undefined {
  if (fields.length < 3) return `needs at least Email, Name and Format separated by ${delimiter}`;
  if (fields[0]!.trim() === "") return "has an empty Email";
  const format = fields[2]!.trim();
  if (format !== "HTML" && format !== "Text") return "Format must be HTML or Text";
  if (fields.length - 3 > maxDemographicFields) {
    return `has ${fields.length - 3} demographic fields, at most ${maxDemographicFields} are allowed`;
  }
  return undefined;
}

/**
 * Rule validator `csvSubscribers` (options: delimiters, maxDemographicFields, optional maxRows): the value
 * is subscriber rows of Email, Name, Format (HTML or Text), then at most maxDemographicFields demographic
 * fields, with one of the delimiters throughout (the first to occur in the first row; the comma allows
 * RFC 4180 quoting), and at most maxRows rows. Refused as InvalidCsv naming the line; the reading stops
 * there, so a text of millions of rows costs no more than maxRows of them.
 */
export function csvSubscribers(
  value: string,
  parameter: string,
  options: Options,
): ExtensionProblem | undefined {
  const delimiters = stringListOption(options, "csvSubscribers", "delimiters");
  const maxDemographicFields = countOption(options, "csvSubscribers", "maxDemographicFields", 0);
  const maxRows = countOption(options, "csvSubscribers", "maxRows", 1, true);
  const fail = (line: number, why: string): ExtensionProblem => ({
    code: "InvalidCsv",
    message: `${parameter} line ${line}: ${why}.`,
  });
  const delimiter = detectDelimiter(value, delimiters);
  if (delimiter === undefined) {
    return value.trim() === ""
      ? { code: "InvalidCsv", message: `${parameter} holds no subscriber rows.` }
      : fail(
          1 + countLines(value.slice(0, value.search(/\S/))),
          `needs Email, Name and Format separated by ${listInWords(delimiters)}`,
        );
  }
  let rows = 0;
  for (const row of readCsvRows(value, delimiter, delimiter === ",")) {
    if (isCsvProblem(row)) return fail(row.line, row.problem);
    const problem = subscriberRowProblem(row.fields, delimiter, maxDemographicFields);
    if (problem !== undefined) return fail(row.line, problem);
    if (maxRows !== undefined && ++rows > maxRows) {
      return fail(row.line, `is row ${maxRows + 1}; one call takes at most ${maxRows} rows`);
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------

const DD_FIELD_RE = /^DD([1-9]\d{0,2})$/i;

function splitDemographic(text: string): { delimiter: string; items: string[] } | "mixed" {
  const semi = text.includes(";");
  const pipe = text.includes("|");
  if (semi && pipe) return "mixed";
  const delimiter = pipe ? "|" : ";";
  return { delimiter, items: text.split(delimiter) };
}

/**
 * Check validator `demographicLists` (params: the field names, then their values; options: maxField,
 * optional splitLength): the first names fields DD1..DD<maxField> delimited by ; or | (one of them), the
 * second holds as many values with the same delimiter; with splitLength, a longer value continues in the
 * following fields. Refused as InvalidDemographicFields (naming the fields parameter) or TooManyFields
 * (naming the values parameter, when a split value runs past the last field).
 */
export function demographicLists(
  values: Readonly<Record<string, unknown>>,
  params: readonly string[],
  options: Options,
): ExtensionProblem | undefined {
  const [fieldsName, valuesName] = params;
  if (fieldsName === undefined || valuesName === undefined) {
    throw new Error(
      "extension demographicLists: params must name the fields parameter, then the values parameter",
    );
  }
  const maxField = countOption(options, "demographicLists", "maxField", 1);
  const splitLength = countOption(options, "demographicLists", "splitLength", 1, true);
  const fieldsText = (values[fieldsName] as string | undefined) ?? "";
  const valuesText = (values[valuesName] as string | undefined) ?? "";
  const fail = (message: string): ExtensionProblem => ({
    code: "InvalidDemographicFields",
    message,
    parameter: fieldsName,
  });
  if (fieldsText === "") {
    return valuesText === "" ? undefined : fail(`${valuesName} is given but ${fieldsName} is empty.`);
  }
  const fields = splitDemographic(fieldsText);
  if (fields === "mixed") return fail(`${fieldsName} must use one delimiter, ; or |, not both.`);
  const items = valuesText === "" ? [""] : valuesText.split(fields.delimiter);
  if (items.length !== fields.items.length) {
    return fail(
      `${fieldsName} names ${fields.items.length} fields but ${valuesName} holds ${items.length} values (delimiter ${fields.delimiter}).`,
    );
  }
  const taken = new Set<number>();
  for (let i = 0; i < fields.items.length; i++) {
    const m = DD_FIELD_RE.exec(fields.items[i]!.trim());
    const n = m ? Number(m[1]) : 0;
    if (n < 1 || n > maxField) {
      return fail(`${fieldsName} item ${i + 1} must be a field name DD1 to DD${maxField}.`);
    }
    const parts = splitLength ? Math.max(1, Math.ceil(characterCount(items[i]!) / splitLength)) : 1;
    for (let p = 0; p < parts; p++) {
      if (n + p > maxField) {
        return {
          code: "TooManyFields",
          message: `${valuesName} item ${i + 1} is too long: split into ${splitLength}-character parts it needs fields past DD${maxField}.`,
          parameter: valuesName,
        };
      }
      if (taken.has(n + p)) return fail(`${fieldsName} uses DD${n + p} twice.`);
      taken.add(n + p);
    }
  }
  return undefined;
}
