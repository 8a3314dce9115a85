// Header fields of the service's mail (mail-headers.ts through mail.ts renderMessage), read back with
// mailparser: every line at most 78 characters (where no address or URL is longer) and never over 998
// octets, every encoded word at most 75 characters and whole characters on its own (valid UTF-8), and the
// decoded Subject and display names equal to what went in (control characters as spaces, trimmed). Hostile
// inputs: long words without spaces, CR/LF, emoji, combining marks, `=?` look-alikes, long runs of spaces,
// unpaired surrogates, and seeded random mixes of them.

import { simpleParser, type AddressObject } from "mailparser";
import { describe, expect, it } from "vitest";
import { renderMessage } from "../../service/delivery/mail.js";
import {
  FOLD_AT,
  MAX_LINE_OCTETS,
  headerText,
  mailboxField,
  plainField,
  unstructuredField,
} from "../../service/delivery/mail-headers.js";
import { Random } from "../fixtures/random.js";

const HOSTILE: readonly string[] = [
  "",
  "Hello world",
  "x".repeat(10_000),
  `${"a".repeat(69)} ${"b".repeat(71)} ${"c".repeat(77)}`,
  "é".repeat(2000),
  "😀".repeat(1000),
  "e\u0301".repeat(400),
  `${"😀".repeat(20)}e\u0301\u0308\u0323${"ü".repeat(30)}`,
  "=?UTF-8?B?QQ==?= injected =?utf-8?Q?a b?= =?x?=",
  "=?",
  "line1\r\nBcc: evil@example.com\r\n\r\nbody",
  "\r\n\r\n",
  "tab\tand\u0000nul\u007fdel\u0085nel",
  "a   b    c       d        e",
  `a${" ".repeat(2000)}b`,
  ` ${"ü".repeat(5)}${" ".repeat(30)}${"x".repeat(200)} `,
  `"quoted" \\back\\ <angle> (paren) , ; : @ [x]`,
  "mixed ascii and ünïcödé words with a verylongword".repeat(40),
  "lone \ud800 high and \udc00 low surrogates",
  "日本語のテキスト".repeat(100),
  "\u202Eright-to-left override",
];

/** What a header carries for `text`, as the parser gives it back. */
const expected = (text: string) => headerText(text);

/** The lines of the header fields whose text comes from data (From, To, Subject): each must fit 78 characters. */
function dataLines(message: string): string[] {
  const lines = message.slice(0, message.indexOf("\r\n\r\n")).split("\r\n");
  for (const line of lines) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(MAX_LINE_OCTETS);
  const out: string[] = [];
  let inData = false;
  for (const line of lines) {
    if (!/^[ \t]/.test(line)) inData = /^(From|To|Subject):/i.test(line);
    if (inData) out.push(line);
  }
  return out;
}

/** Every line within the limits, every encoded word at most 75 characters and whole UTF-8 on its own. */
function checkLines(lines: readonly string[], foldAt = FOLD_AT): void {
  for (const line of lines) {
    expect(Buffer.byteLength(line, "utf8"), line.slice(0, 60)).toBeLessThanOrEqual(MAX_LINE_OCTETS);
    expect(Buffer.byteLength(line, "utf8"), line.slice(0, 60)).toBeLessThanOrEqual(foldAt);
    expect(line).not.toMatch(/^[ \t]*$/);
    for (const word of line.match(/=\?[^?\s]*\?[BbQq]\?[^?\s]*\?=/g) ?? []) {
      expect(word.length).toBeLessThanOrEqual(75);
      const bytes = Buffer.from(word.slice(10, -2), "base64");
      expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes), word).not.toThrow();
    }
  }
}

async function roundTrip(text: string, name = text) {
  const message = renderMessage(
    {
      accountId: 1,
      kind: "test",
      from: { name, address: "from@example.com" },
      to: { name, address: "to@example.com" },
      subject: text,
      text: "body",
      headers: {
        "List-Unsubscribe": "<http://127.0.0.1:1/u/1.2.3.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      },
    },
    0,
    "example.com",
  );
  const parsed = await simpleParser(message);
  const first = (field: AddressObject | AddressObject[] | undefined) =>
    (Array.isArray(field) ? field[0] : field)?.value[0];
  return { lines: dataLines(message), parsed, from: first(parsed.from), to: first(parsed.to) };
}

describe("mail header fields", () => {
  it("fold hostile subjects and display names within 78 characters, decoding to the input", async () => {
    for (const text of HOSTILE) {
      const { lines, parsed, from, to } = await roundTrip(text);
      checkLines(lines);
      expect(parsed.subject ?? "", JSON.stringify(text.slice(0, 40))).toBe(expected(text));
      expect(from?.name ?? "", JSON.stringify(text.slice(0, 40))).toBe(expected(text));
      expect(from?.address).toBe("from@example.com");
      expect(to?.name ?? "").toBe(expected(text));
      expect(to?.address).toBe("to@example.com");
      expect(parsed.headerLines.find((h) => h.key === "list-unsubscribe-post")?.line).toBe(
        "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
      );
      expect(parsed.headers.has("bcc")).toBe(false);
    }
  });

  it("fold seeded random mixes of hostile pieces the same way", async () => {
    const pieces = [
      "a",
      "Z",
      " ",
      "  ",
      "\t",
      "\r\n",
      "=?",
      "?=",
      "é",
      "😀",
      "\u0301",
      "日",
      '"',
      "\\",
      "<",
      "x".repeat(90),
      " ".repeat(12),
      "\ud800",
      "_",
      "?",
    ];
    const random = new Random(20261127);
    for (let round = 0; round < 300; round++) {
      let text = "";
      const count = 1 + random.int(60);
      for (let k = 0; k < count; k++) text += random.pick(pieces);
      const { lines, parsed, from } = await roundTrip(text);
      checkLines(lines);
      expect(parsed.subject ?? "", JSON.stringify(text)).toBe(expected(text));
      expect(from?.name ?? "", JSON.stringify(text)).toBe(expected(text));
    }
  });

  it("keep short plain text as it is: a quoted display name, an unencoded subject", () => {
    expect(unstructuredField("Subject", "Order 12 for Ann")).toBe("Subject: Order 12 for Ann");
    expect(mailboxField("From", 'Shop "A" \\ B', "shop@example.com")).toBe(
      'From: "Shop \\"A\\" \\\\ B" <shop@example.com>',
    );
    expect(mailboxField("To", "", "ann@example.com")).toBe("To: <ann@example.com>");
    expect(unstructuredField("Subject", "Ä")).toBe("Subject: =?UTF-8?B?w4Q=?=");
  });

  it("put a long address on a line of its own, under 998 octets", () => {
    const address = `${"ü".repeat(240)}@example.com`;
    const field = mailboxField("To", "Ann", address);
    const lines = field.split("\r\n");
    expect(lines.at(-1)).toBe(` <${address}>`);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LINE_OCTETS);
  });

  it("fold a service-made field at its spaces, and refuse one that cannot fit 998 octets", () => {
    expect(plainField("List-Unsubscribe", "<https://a.test/u/1>, <mailto:u@a.test>")).toBe(
      "List-Unsubscribe: <https://a.test/u/1>, <mailto:u@a.test>",
    );
    const long = plainField("X-Long", Array.from({ length: 30 }, (_, i) => `token${i}`).join(" "));
    for (const line of long.split("\r\n")) expect(line.length).toBeLessThanOrEqual(FOLD_AT);
    expect(plainField("X-Break", "a\r\nBcc: x@example.com")).toBe("X-Break: a Bcc: x@example.com");
    expect(() => plainField("X-Huge", "x".repeat(1000))).toThrow(/cannot be folded/);
  });
});
