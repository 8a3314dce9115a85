// XML attacks on the server: documents whose cost grows faster than their size in a careless reader
// (and the HTTP POST form reader's counterparts). Each is one request (SOAP 1.1 InsertSubscriberSid, or the
// wire page's HTTP POST); the time is measured from its last byte written to
// its answer, and a probe (the wire page's ordinary InsertSubscriberSid) is sent on another connection
// right after the attack's last byte, to see whether the server still answers others meanwhile.

import { RawConnection, type Outcome } from "./connection.js";
import { judgeAnswer } from "./judge.js";
import { formWithPrefix, PROBE_REQUEST, soapWithPayload } from "./requests.js";

const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

export interface XmlAttack {
  readonly name: string;
  /**
   * The request's pieces (head first). Built on demand: some are tens of megabytes. `scale` shrinks the
   * attacks whose cost is their volume (the quick subset uses `quickScale`); counted ones ignore it.
   */
  build(scale?: number): Buffer[];
  /** The scale the quick subset in `npm test` uses (default 1). */
  readonly quickScale?: number;
  /**
   * An attack by volume alone (one huge value): held to the issue's linear-time target (read at
   * VOLUME_MB_PER_S or faster) and the probe, not to the 100 ms of the floods of attributes or elements.
   */
  readonly volume?: boolean;
  /** Besides being well-formed, what the answer must not contain (an entity's expansion, say). */
  readonly mustNotContain?: string;
}

function repeated(piece: string, times: number): Buffer {
  return Buffer.alloc(piece.length * times, piece, "latin1");
}

function attributes(count: number, make: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(make(i));
  return parts.join("");
}

const LAUGHS =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from(
    { length: 9 },
    (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
  ).join("") +
  "]>";

export const XML_ATTACKS: readonly XmlAttack[] = [
  {
    name: "100,000 attributes on one element",
    build: () =>
      soapWithPayload({ strName: `<strName${attributes(100_000, (i) => ` a${i}=""`)}>N</strName>` }),
  },
  {
    name: "30,000 xmlns declarations",
    build: () =>
      soapWithPayload({
        strName: `<strName${attributes(30_000, (i) => ` xmlns:p${i}="urn:p${i}"`)}>N</strName>`,
      }),
  },
  {
    name: "1,000,000 elements (<a/>) in a parameter",
    build: () =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from("<strName>"),
          repeated("<a/>", 1_000_000),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  {
    name: "nesting 10,000 deep",
    build: () =>
      soapWithPayload({ strName: `<strName>${"<a>".repeat(10_000)}${"</a>".repeat(10_000)}</strName>` }),
  },
  {
    name: "DOCTYPE: billion laughs",
    build: () => soapWithPayload({ beforeEnvelope: LAUGHS, strName: "<strName>&lol9;</strName>" }),
    mustNotContain: "lollollol",
  },
  {
    name: "DOCTYPE: external entity (XXE)",
    build: () =>
      soapWithPayload({
        beforeEnvelope: '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
        strName: "<strName>&xxe;</strName>",
      }),
    mustNotContain: "root:",
  },
  {
    name: "1 MB element name (operation, no SOAPAction)",
    build: () => {
      const name = repeated("a", 1024 * 1024);
      return soapWithPayload({
        operation: Buffer.concat([Buffer.from("<"), name, Buffer.from(' xmlns="http://tempuri.org/"/>')]),
        soapAction: null,
      });
    },
  },
  {
    name: "60 MB text parameter",
    volume: true,
    quickScale: 0.1,
    build: (scale = 1) =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from("<strName>"),
          repeated("x", Math.round(scale * 60 * 1024 * 1024)),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  {
    name: "60 MB of entity references (&amp;) in a parameter",
    volume: true,
    quickScale: 0.05,
    build: (scale = 1) =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from("<strName>"),
          repeated("&amp;", Math.round((scale * 60 * 1024 * 1024) / 5)),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  {
    name: "1,000,000 tiny text nodes and comments",
    quickScale: 0.1,
    build: (scale = 1) =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from("<strName>"),
          repeated("x<!---->", Math.round(scale * 1_000_000)),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  // xsi:nil, xsi:type and xs:any-shaped input (issue 24: nullable values, derived types and XML carried as
  // XML are read from what a client sends): floods of each, inside a parameter and beside the parameters.
  {
    name: "100,000 xsi:nil elements in a parameter",
    build: () =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from(`<strName xmlns:xsi="${XSI_NS}">`),
          repeated('<a xsi:nil="true"/>', 100_000),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  {
    name: "xsi:nil on a parameter that has content",
    build: () => soapWithPayload({ strName: `<strName xmlns:xsi="${XSI_NS}" xsi:nil="true">N</strName>` }),
  },
  {
    name: "100,000 elements with xsi:type of an unknown type",
    build: () =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from(`<strName xmlns:xsi="${XSI_NS}" xmlns:q="urn:q">`),
          repeated('<a xsi:type="q:Unknown"/>', 100_000),
          Buffer.from("</strName>"),
        ]),
      }),
  },
  {
    name: "xsi:type of an unknown type on a parameter",
    build: () =>
      soapWithPayload({
        strName: `<strName xmlns:xsi="${XSI_NS}" xmlns:q="urn:q" xsi:type="q:Derived"><q:Extra>1</q:Extra>N</strName>`,
      }),
  },
  {
    name: "xs:any-shaped: 100,000 unknown elements beside the parameters",
    build: () =>
      soapWithPayload({
        strName: Buffer.concat([
          Buffer.from("<strName>N</strName><Extra>"),
          repeated('<q:any xmlns:q="urn:q" q:at="1"><b/></q:any>', 20_000),
          Buffer.from("</Extra>"),
        ]),
      }),
  },
  // The HTTP POST binding's form reader meets the same kind of input.
  {
    name: "HTTP POST form: 1,000,000 parameters",
    build: () => formWithPrefix(repeated("a=1&", 1_000_000)),
  },
  {
    name: "HTTP POST form: a 16 MB name of '+' (spaces)",
    volume: true,
    quickScale: 0.5,
    build: (scale = 1) =>
      formWithPrefix(
        Buffer.concat([repeated("+", Math.round(scale * 16 * 1024 * 1024)), Buffer.from("=1&")]),
      ),
  },
  {
    name: "HTTP POST form: 16 MB of %-escapes in a name",
    volume: true,
    quickScale: 0.25,
    build: (scale = 1) =>
      formWithPrefix(
        Buffer.concat([repeated("%41", Math.round((scale * 16 * 1024 * 1024) / 3)), Buffer.from("=1&")]),
      ),
  },
];

/** Delay between the attack's last byte and the probe: the server has the whole attack by then. */
const PROBE_DELAY_MS = 20;

export interface AttackMeasure {
  readonly attack: Outcome;
  readonly probe: Outcome;
  /** Undefined when the attack's answer is well-formed and carries nothing it must not. */
  readonly problem: string | undefined;
  readonly bytes: number;
}

/** Sends one attack and, right after its last byte, the probe on a second connection. */
export async function runXmlAttack(
  port: number,
  attack: XmlAttack,
  timeoutMs = 30_000,
  scale = 1,
): Promise<AttackMeasure> {
  const pieces = attack.build(scale);
  const bytes = pieces.reduce((n, p) => n + p.length, 0);
  const attacker = await RawConnection.open(port);
  const prober = await RawConnection.open(port);
  try {
    const attackDone = attacker.exchange(pieces, { timeoutMs });
    // The probe follows the attack's last byte after PROBE_DELAY_MS, by when the server is reading it.
    await attacker.written();
    await new Promise((resolve) => setTimeout(resolve, PROBE_DELAY_MS));
    const probe = await prober.exchange(PROBE_REQUEST, { timeoutMs });
    const outcome = await attackDone;
    let problem: string | undefined;
    if (outcome.kind !== "answer") problem = outcome.detail;
    else {
      problem = judgeAnswer(outcome);
      if (!problem && attack.mustNotContain && outcome.body.toString("utf8").includes(attack.mustNotContain))
        problem = `answer contains ${attack.mustNotContain}`;
    }
    if (!problem && probe.kind !== "answer") problem = `probe: ${probe.detail}`;
    return { attack: outcome, probe, problem, bytes };
  } finally {
    attacker.close();
    prober.close();
  }
}

/** "400 DoctypeRefused" / "500 fault" / "200": what the attack got, for the table. */
export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind !== "answer") return outcome.kind;
  const code =
    outcome.headers["x-error-code"] ?? /<Code>([^<]{1,40})<\/Code>/.exec(outcome.body.toString("utf8"))?.[1];
  return code ? `${outcome.status} ${code}` : String(outcome.status);
}

/** Shapes of one parameter's content whose read time must grow linearly with their size. */
export const LINEAR_SHAPES: readonly { readonly name: string; readonly piece: string }[] = [
  { name: "plain text", piece: "x" },
  { name: "text and comments", piece: "x<!---->" },
  { name: "entity references", piece: "&amp;" },
  { name: "character references", piece: "&#233;" },
  { name: "CDATA sections", piece: "<![CDATA[x]]>" },
];

export interface Linearity {
  readonly smallMs: number;
  readonly largeMs: number;
  /** largeMs / smallMs for a body `factor` times larger. */
  readonly ratio: number;
}

/**
 * Times one shape at `smallBytes` and `factor` times that (the median of `rounds` each) against the server on
 * `port`. The median, not the best: a time is taken from the client's last write, which a client kept waiting
 * by the busy server notes late, so the shortest of a few can be far too short (a 4 MiB read once measured
 * 2.2 ms against 6-13 ms in every other run, and the ratio 11.5x).
 */
export async function measureLinearity(
  port: number,
  piece: string,
  smallBytes: number,
  factor: number,
  rounds = 3,
): Promise<Linearity> {
  const time = async (bytes: number) => {
    const payload = Buffer.concat([
      Buffer.from("<strName>"),
      repeated(piece, Math.ceil(bytes / piece.length)),
      Buffer.from("</strName>"),
    ]);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const connection = await RawConnection.open(port);
      const outcome = await connection.exchange(soapWithPayload({ strName: payload }), { timeoutMs: 30_000 });
      connection.close();
      times.push(outcome.kind === "answer" ? outcome.ms : Number.POSITIVE_INFINITY);
    }
    times.sort((a, b) => a - b);
    return times[times.length >> 1]!;
  };
  const smallMs = await time(smallBytes);
  const largeMs = await time(smallBytes * factor);
  return { smallMs, largeMs, ratio: largeMs / smallMs };
}
