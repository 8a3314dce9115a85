// Seeded mutations of a request: bytes, headers, lengths, spliced envelopes, truncation, duplication,
// inserted markup, invalid UTF-8, huge values, methods and query strings. Each returns the mutated copy
// and its name (for the failure report). The body's framing stays correct unless the mutation is about
// framing, in which case the request is marked `breaksFraming` and its connection is not reused.

import { cloneRequest, type RawRequest } from "./requests.js";

export type Random = () => number;

export interface Mutation {
  readonly name: string;
  readonly request: RawRequest;
}

const MARKUP = [
  "<",
  ">",
  "</",
  "<x>",
  "</x>",
  "<x/>",
  "</soap:Body>",
  "<soap:Body>",
  "<!--",
  "-->",
  "<![CDATA[",
  "]]>",
  "&",
  "&amp;",
  "&bogus;",
  "&#0;",
  "&#x0;",
  "&#xD800;",
  "&#x110000;",
  "&#65;",
  "<?pi x?>",
  '<?xml version="1.0"?>',
  "<!DOCTYPE x>",
  '<!ENTITY e "x">',
  '"',
  "'",
  "=",
  ' a="1"',
  ' xmlns:p="urn:x"',
  ' xmlns=""',
  ' xsi:nil="true"',
  "\u0000",
  "\u0001",
  "\uFFFE",
  "\r\n",
  "\t",
  " ",
  "p:",
  ":",
];

const INVALID_UTF8 = [
  [0xc3, 0x28],
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

const CONTENT_TYPES = [
  "text/xml; charset=utf-8",
  "application/soap+xml; charset=utf-8",
  'application/soap+xml; charset=utf-8; action="http://tempuri.org/Nope"',
  "application/x-www-form-urlencoded",
  "text/plain",
  "text/xml; charset=utf-16",
  "text/xml; charset=iso-8859-1",
  "text/xml; charset=bogus",
  'text/xml; charset="utf-8',
  "multipart/form-data; boundary=x",
  "",
  ";",
  "text/xml;;;charset=",
  "application/xml",
  "*/*",
];

const SOAP_ACTIONS = [
  '""',
  '"http://tempuri.org/Nope"',
  "http://tempuri.org/InsertSubscriberSid",
  '"http://tempuri.org/GetTriggerIdForAccount"',
  '"',
  "x".repeat(300),
  '"http://evil.example/InsertSubscriberSid"',
];

const METHODS = ["PUT", "DELETE", "OPTIONS", "PATCH", "POST", "GET", "TRACE", "FOO"];

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

function int(random: Random, max: number): number {
  return Math.floor(random() * max);
}

/** A length that is usually small and now and then huge (up to 1 MiB). */
function hugeLength(random: Random): number {
  const r = random();
  if (r < 0.6) return 100 + int(random, 4000);
  if (r < 0.95) return 10_000 + int(random, 90_000);
  return 200_000 + int(random, 850_000);
}

function insertAt(body: Buffer, at: number, piece: Buffer): Buffer {
  return Buffer.concat([body.subarray(0, at), piece, body.subarray(at)]);
}

/** The byte range of a parameter's text inside a SOAP body or a form (key=value). */
function valueRange(r: RawRequest, random: Random): [number, number] | undefined {
  const text = r.body.toString("latin1");
  if (r.binding === "soap11" || r.binding === "soap12") {
    const ranges: [number, number][] = [];
    const re = /<(str\w+|\w+)>([^<]*)<\/\1>/g;
    for (let m = re.exec(text); m; m = re.exec(text))
      ranges.push([m.index + m[1].length + 2, m.index + m[1].length + 2 + m[2].length]);
    return ranges.length ? pick(random, ranges) : undefined;
  }
  const ranges: [number, number][] = [];
  let at = 0;
  for (const pair of text.split("&")) {
    const eq = pair.indexOf("=");
    if (eq >= 0) ranges.push([at + eq + 1, at + pair.length]);
    at += pair.length + 1;
  }
  return ranges.length ? pick(random, ranges) : undefined;
}

type Mutator = (r: RawRequest, random: Random, others: readonly RawRequest[]) => string;

/** HTTP GET carries its parameters in the query: mutations of "the body" apply there instead. */
function withPayload(r: RawRequest, edit: (payload: Buffer) => Buffer): void {
  if (r.binding === "httpGet" && r.method === "GET") {
    const q = r.target.indexOf("?");
    const query = Buffer.from(q < 0 ? "" : r.target.slice(q + 1), "latin1");
    // The request line cannot carry raw spaces or line breaks: what an edit puts there is %-escaped.
    const edited = edit(query)
      .toString("latin1")
      .replace(
        /[\x00-\x20\x7f-\xff]/g,
        (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`,
      );
    r.target = `${q < 0 ? r.target : r.target.slice(0, q)}?${edited}`;
  } else {
    r.body = edit(r.body);
  }
}

const MUTATORS: Record<string, Mutator> = {
  flipBytes: (r, random) => {
    withPayload(r, (b) => {
      const out = Buffer.from(b);
      const n = 1 + int(random, 8);
      for (let i = 0; i < n && out.length; i++)
        out[int(random, out.length)] = pick(random, [0, 0xff, 0x3c, 0x3e, 0x26, 0x22, int(random, 256)]);
      return out;
    });
    return "flip bytes";
  },
  truncate: (r, random) => {
    withPayload(r, (b) => b.subarray(0, int(random, b.length + 1)));
    return "truncate";
  },
  duplicate: (r, random) => {
    withPayload(r, (b) => {
      const from = int(random, b.length + 1);
      const to = Math.min(b.length, from + 1 + int(random, 200));
      return insertAt(
        b,
        to,
        Buffer.concat(Array.from({ length: 1 + int(random, 50) }, () => b.subarray(from, to))),
      );
    });
    return "duplicate a slice";
  },
  insertMarkup: (r, random) => {
    withPayload(r, (b) => {
      let out = b;
      const n = 1 + int(random, 4);
      for (let i = 0; i < n; i++)
        out = insertAt(out, int(random, out.length + 1), Buffer.from(pick(random, MARKUP), "utf8"));
      return out;
    });
    return "insert markup";
  },
  invalidUtf8: (r, random) => {
    withPayload(r, (b) => {
      const range = valueRange(r, random);
      const at = range ? range[0] + int(random, range[1] - range[0] + 1) : int(random, b.length + 1);
      return insertAt(b, at, Buffer.from(pick(random, INVALID_UTF8)));
    });
    return "invalid UTF-8";
  },
  hugeValue: (r, random) => {
    const range = valueRange(r, random);
    const piece = pick(random, ["x", "é", "9", "<a/>", "&amp;", "%41", " ", "😀", "-"]);
    const value = Buffer.from(piece.repeat(Math.ceil(hugeLength(random) / piece.length)), "utf8");
    if (r.binding === "httpGet" && r.method === "GET") {
      const q = r.target.indexOf("?");
      r.target = `${r.target}${q < 0 ? "?" : "&"}strName=${encodeURIComponent(value.toString("utf8").slice(0, 8000))}`;
      return "huge value (query)";
    }
    r.body = range
      ? Buffer.concat([r.body.subarray(0, range[0]), value, r.body.subarray(range[1])])
      : Buffer.concat([r.body, value]);
    return "huge value";
  },
  splice: (r, random, others) => {
    const other = pick(random, others);
    const cut = int(random, r.body.length + 1);
    r.body = Buffer.concat([
      r.body.subarray(0, cut),
      other.body.subarray(int(random, other.body.length + 1)),
    ]);
    return "splice two requests";
  },
  swapBody: (r, random, others) => {
    r.body = pick(random, others).body;
    return "body of another binding";
  },
  contentType: (r, random) => {
    r.headers = r.headers.filter(([n]) => n.toLowerCase() !== "content-type");
    const type = pick(random, CONTENT_TYPES);
    if (type !== "" || random() < 0.5) r.headers.push(["content-type", type]);
    return "content type";
  },
  soapAction: (r, random) => {
    r.headers = r.headers.filter(([n]) => n.toLowerCase() !== "soapaction");
    if (random() < 0.85) r.headers.push(["SOAPAction", pick(random, SOAP_ACTIONS)]);
    return "SOAPAction";
  },
  extraHeaders: (r, random) => {
    const extras: [string, string][] = [
      ["Expect", "100-continue"],
      ["Accept-Encoding", "gzip"],
      ["Connection", "keep-alive"],
      ["X-Forwarded-Host", "evil.example"],
      ["Content-Encoding", "gzip"],
      ["Transfer-Encoding", "identity"],
      ["X-Long", "y".repeat(4000)],
      ["Cookie", "a=b"],
    ];
    for (let i = 0, n = 1 + int(random, 3); i < n; i++) {
      const header = pick(random, extras);
      r.headers.push(header);
      // A request with a Transfer-Encoding other than chunked has a body that runs to the end of the
      // connection (RFC 9112 6.3): what follows on it is that body, not a new request.
      if (header[0] === "Transfer-Encoding") r.breaksFraming = true;
    }
    return "extra headers";
  },
  duplicateHeaders: (r, random) => {
    // A second Content-Type or SOAPAction that disagrees with the first, or a Host other than ours.
    const [name, value] = pick(random, [
      ["Content-Type", pick(random, CONTENT_TYPES)],
      ["SOAPAction", pick(random, SOAP_ACTIONS)],
      ["Host", pick(random, ["evil.example", "127.0.0.1:1", ""])],
    ] as [string, string][]);
    r.headers.push([name, value]);
    return "duplicate headers";
  },
  chunked: (r) => {
    r.framing = "chunked";
    return "chunked body";
  },
  shortLength: (r, random) => {
    const share = random();
    r.framing = "lengths";
    r.lengths = (n) => [String(Math.floor(n * share))];
    r.breaksFraming = true;
    return "Content-Length too small";
  },
  badLength: (r, random) => {
    const kind = int(random, 7);
    const alsoRight = random() < 0.5;
    r.framing = "lengths";
    r.lengths = (n) => [
      ["-1", "12a", "1e3", " ", "0x10", `${n}, ${n + 1}`, "99999999999999999999"][kind],
      ...(alsoRight ? [String(n)] : []),
    ];
    r.breaksFraming = true;
    return "Content-Length malformed";
  },
  method: (r, random) => {
    r.method = pick(random, METHODS);
    return "method";
  },
  target: (r, random) => {
    const suffixes = [
      "",
      "/",
      "/Nope",
      "/InsertSubscriberSid/x",
      "?WSDL",
      "?op=Nope",
      "?op=InsertSubscriberSid",
      "/%",
      "/%zz",
      "/%C3",
      "//",
      "/..",
      "?a=%",
      "?strUsername=%FF",
    ];
    const q = r.target.indexOf("?");
    const base = q < 0 ? r.target : r.target.slice(0, q);
    r.target = pick(random, [
      base + pick(random, suffixes),
      `${r.target}&${pick(random, ["a=1", "strUsername=v", "=", "&&", "%", "x"])}`,
    ]);
    return "path or query";
  },
};

const NAMES = Object.keys(MUTATORS);

/** One to three mutations of a copy of `base`. */
export function mutate(base: RawRequest, random: Random, others: readonly RawRequest[]): Mutation {
  const r = cloneRequest(base);
  const names: string[] = [];
  for (let i = 0, n = 1 + (random() < 0.3 ? 1 + int(random, 2) : 0); i < n; i++)
    names.push(MUTATORS[pick(random, NAMES)](r, random, others));
  return { name: names.join(" + "), request: r };
}
