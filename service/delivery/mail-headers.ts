// Header fields of the mail the service writes, folded as RFC 5322 §2.2.3 says: every line at most 78
// characters where the content allows it (the SHOULD), and never more than 998 octets (the MUST). The
// service builds its messages itself (mail.ts) and hands them to nodemailer only as raw text, so the
// folding is done here: nodemailer's composer folds only at white space and leaves a long word, a long
// display name or a long URL on one line of any length.
//
// - Text (Subject, display names) is made safe first: line breaks and other control characters become
//   spaces, an unpaired surrogate becomes U+FFFD, surrounding white space is removed.
// - Unstructured text (Subject) keeps its plain words (printable ASCII, no `=?`, short enough for a line)
//   as they are and folds before the single space between them. Every other word, and every run of more
//   than one white space (parsers unfold a fold and the white space after it to one space, so only a
//   single space survives a fold everywhere), goes into RFC 2047 encoded words (`=?UTF-8?B?...?=`, at most 75
//   characters each), cut between characters (never inside a UTF-8 sequence or a surrogate pair).
//   Neighbouring words that need encoding are encoded together with the white space between them, since a
//   decoder drops white space between two encoded words.
// - A display name is one quoted string when it is printable ASCII without `=?` and the mailbox fits on
//   the first line; otherwise the whole name is encoded words, and the address follows on its own line
//   when the line is full. An address cannot be folded: its line is at most 1 + 2 + 254 UTF-16 units
//   (762 octets of UTF-8), under 998.

/** The line length RFC 5322 recommends (SHOULD), without the CRLF. */
export const FOLD_AT = 78;
/** The line length RFC 5322 allows at most (MUST), in octets, without the CRLF. */
export const MAX_LINE_OCTETS = 998;
/** The longest RFC 2047 encoded word. */
const MAX_ENCODED_WORD = 75;
const WORD_START = "=?UTF-8?B?";
const WORD_END = "?=";
/** Room an encoded word needs for one character of up to 4 UTF-8 octets (8 base64 characters). */
const MIN_ENCODED_WORD = WORD_START.length + WORD_END.length + 8;
/** The longest plain word: with the one space before it, it fits a continuation line. */
const MAX_PLAIN_WORD = FOLD_AT - 1;
/**
 * Runs of more white space go into encoded words: a fold goes before a single space only, since many
 * parsers unfold a line break and the white space after it into one space.
 */
const MAX_SPACE_RUN = 1;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text a header carries for `text`: control characters (line breaks too) as spaces, unpaired surrogates as U+FFFD, trimmed. */
export function headerText(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd").replace(CONTROL, " ").trim();
}

const octets = (text: string): number => Buffer.byteLength(text, "utf8");

/** Builds one header field line by line. */
class Folder {
  private readonly lines: string[] = [];
  private line: string;
  private lineOctets: number;
  private readonly start: number;

  constructor(name: string) {
    this.line = `${name}:`;
    this.lineOctets = octets(this.line);
    this.start = this.lineOctets;
  }

  /** Octets left on the current line up to FOLD_AT. */
  room(): number {
    return FOLD_AT - this.lineOctets;
  }

  /** Whether the current line holds anything after the field name. */
  private used(): boolean {
    return this.lineOctets > this.start;
  }

  /** Appends `token` after the white space `space` (not empty), folding before `space` when it does not fit. */
  put(space: string, token: string): void {
    const size = octets(space) + octets(token);
    if (this.lineOctets + size > FOLD_AT && this.used()) this.fold();
    this.line += space + token;
    this.lineOctets += size;
  }

  /** Ends the current line: what follows starts a continuation line (with white space of its own). */
  fold(): void {
    this.lines.push(this.line);
    this.line = "";
    this.lineOctets = 0;
  }

  toString(): string {
    const lines = [...this.lines, this.line];
    for (const line of lines) {
      if (octets(line) > MAX_LINE_OCTETS)
        throw new Error(`a header line of ${octets(line)} octets cannot be folded: ${line.slice(0, 40)}...`);
    }
    return lines.join("\r\n");
  }
}

/**
 * Appends `text` as encoded words, the first after `space` (later ones after one space, which decoders
 * drop between encoded words), each filling what is left of its line, at most 75 characters.
 */
function putEncoded(folder: Folder, space: string, text: string): void {
  const chars = Array.from(text);
  let at = 0;
  let before = space;
  while (at < chars.length) {
    let room = Math.min(MAX_ENCODED_WORD, folder.room() - octets(before));
    if (room < MIN_ENCODED_WORD) {
      folder.fold();
      room = Math.min(MAX_ENCODED_WORD, FOLD_AT - octets(before));
    }
    // Base64 comes in groups of 4 characters for 3 octets.
    const maxOctets = Math.floor((room - WORD_START.length - WORD_END.length) / 4) * 3;
    let used = 0;
    const from = at;
    while (at < chars.length) {
      const size = octets(chars[at]!);
      if (used + size > maxOctets) break;
      used += size;
      at++;
    }
    const word = `${WORD_START}${Buffer.from(chars.slice(from, at).join(""), "utf8").toString("base64")}${WORD_END}`;
    folder.put(before, word);
    before = " ";
  }
}

const PLAIN_WORD = /^[\x21-\x7e]+$/;

/** Whether a word can go into a header as it is (it is never read as an encoded word). */
function isPlainWord(word: string, maxLength: number): boolean {
  return word.length <= maxLength && PLAIN_WORD.test(word) && !word.includes("=?");
}

/** `Name: text` folded, with encoded words where needed (see the top of this file). */
export function unstructuredField(name: string, text: string): string {
  const folder = new Folder(name);
  const value = headerText(text);
  if (value === "") return folder.toString();
  // Alternating words and white-space runs: [word, space, word, ..., word].
  const parts = value.split(/( +)/);
  const words = parts.filter((_, i) => i % 2 === 0);
  const spaces = parts.filter((_, i) => i % 2 === 1);
  const firstMax = Math.min(MAX_PLAIN_WORD, FOLD_AT - name.length - 2);
  const encode = words.map((word, i) => !isPlainWord(word, i === 0 ? firstMax : MAX_PLAIN_WORD));
  spaces.forEach((space, i) => {
    if (space.length > MAX_SPACE_RUN) encode[i] = encode[i + 1] = true;
  });
  let i = 0;
  let space = " ";
  while (i < words.length) {
    if (!encode[i]) {
      folder.put(space, words[i]!);
      space = spaces[i] ?? "";
      i++;
      continue;
    }
    // Neighbouring words to encode, with the white space between them, as one text.
    let segment = words[i]!;
    while (encode[i + 1] && i + 1 < words.length) {
      segment += spaces[i]! + words[i + 1]!;
      i++;
    }
    putEncoded(folder, space, segment);
    space = spaces[i] ?? "";
    i++;
  }
  return folder.toString();
}

/** `Name: display-name <address>` folded (see the top of this file); just `<address>` without a name. */
export function mailboxField(name: string, display: string, address: string): string {
  const folder = new Folder(name);
  const safeAddress = `<${address.replace(/[\s<>\u0000-\u001f\u007f-\u009f]/g, "")}>`;
  const text = headerText(display);
  if (text === "") {
    folder.put(" ", safeAddress);
    return folder.toString();
  }
  const quoted = `"${text.replace(/["\\]/g, "\\$&")}"`;
  if (
    /^[\x20-\x7e]*$/.test(text) &&
    !text.includes("=?") &&
    octets(quoted) + 1 + octets(safeAddress) <= folder.room() - 1
  ) {
    folder.put(" ", quoted);
  } else {
    putEncoded(folder, " ", text);
  }
  folder.put(" ", safeAddress);
  return folder.toString();
}

/**
 * `Name: value` for a value the service made itself (List-Unsubscribe, List-Unsubscribe-Post): control
 * characters as spaces, folded before the white space in it. A token longer than a line (a URL) stays
 * whole on its own line; a line over 998 octets is an error.
 */
export function plainField(name: string, value: string): string {
  const folder = new Folder(name);
  const tokens = headerText(value)
    .split(/ +/)
    .filter((t) => t !== "");
  for (const token of tokens) folder.put(" ", token);
  return folder.toString();
}
