// The reader limits (attributes per element, elements per document) and the bounds they exist for:
// reading is linear in the input (no quadratic attribute or namespace handling) and a tree costs
// a bounded multiple of the input (tree.ts documents it).
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { readers, refusal } from "./readers.js";
import { timeRatio } from "../../fixtures/growth.js";
import { readXml } from "../../../runtime/xml/scan.js";
import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_READER_MAX_ELEMENTS,
  type XmlRefusalReason,
} from "../../../runtime/xml/tree.js";

/** ` a0="1" a1="1" ...`: n plain attributes. */
function plain(n: number, from = 0): string {
  let s = "";
  for (let k = from; k < from + n; k++) s += ` a${k}="1"`;
  return s;
}

/** ` xmlns:p0="urn:0" ...`: n namespace declarations. */
function declarations(n: number): string {
  let s = "";
  for (let k = 0; k < n; k++) s += ` xmlns:p${k}="urn:${k}"`;
  return s;
}

/** A SOAP 1.1 request whose operation element carries `attrs`. */
function soap(attrs: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">` +
    `<soap:Body><InsertSubscriberSid xmlns="http://tempuri.org/"${attrs}><strUsername>u</strUsername>` +
    `</InsertSubscriberSid></soap:Body></soap:Envelope>`
  );
}

describe.each(readers)("%s", (_name, read) => {
  describe("maxAttributes (default 64, namespace declarations included)", () => {
    it.each([
      ["plain attributes at the default limit", `<a${plain(DEFAULT_MAX_ATTRIBUTES)}/>`, undefined, true],
      [
        "plain attributes one past the default limit",
        `<a${plain(DEFAULT_MAX_ATTRIBUTES + 1)}/>`,
        undefined,
        false,
      ],
      [
        "namespace declarations at the default limit",
        `<a${declarations(DEFAULT_MAX_ATTRIBUTES)}/>`,
        undefined,
        true,
      ],
      [
        "namespace declarations one past the default limit",
        `<a${declarations(DEFAULT_MAX_ATTRIBUTES + 1)}/>`,
        undefined,
        false,
      ],
      [
        "declarations and attributes at the limit together",
        `<a xmlns="urn:d"${declarations(2)}${plain(DEFAULT_MAX_ATTRIBUTES - 3)}/>`,
        undefined,
        true,
      ],
      [
        "declarations and attributes one past the limit together",
        `<a xmlns="urn:d"${declarations(2)}${plain(DEFAULT_MAX_ATTRIBUTES - 2)}/>`,
        undefined,
        false,
      ],
      ["attributes at a custom limit, on an element with content", `<a${plain(3)}><b/></a>`, 3, true],
      ["attributes one past a custom limit, on an element with content", `<a${plain(4)}><b/></a>`, 3, false],
      ["one attribute under a limit of zero", `<a b="1"/>`, 0, false],
      ["a deeper element one past the limit", `<a${plain(3)}><b${plain(4)}/></a>`, 3, false],
    ] as const)("%s", (_what, doc, maxAttributes, ok) => {
      const options = maxAttributes === undefined ? undefined : { maxAttributes };
      if (ok) expect(read(doc, options).local).toBe("a");
      else expect(refusal(read, doc, options).reason).toBe<XmlRefusalReason>("attributes");
    });

    it("refuses at the attribute that passes the limit, before reading what follows", () => {
      // The 65th attribute and everything after it are garbage: the limit is reached first.
      const e = refusal(read, `<a${plain(DEFAULT_MAX_ATTRIBUTES)} <<<&&& unterminated="`);
      expect(e.reason).toBe<XmlRefusalReason>("attributes");
      expect(e.message).toBe("An element has more than 64 attributes.");
    });

    // The quadratic reader read every attribute before counting (100,000: 44 s; 30,000 declarations:
    // 2.7 s). Instead of a time bound, garbage in place of the attribute past the limit (the operation
    // element's own xmlns is one) must be refused as that attribute: the rest is never read.
    it("refuses 100,000 attributes on one element (a 1.09 MB SOAP request), before reading past the limit", () => {
      const doc = soap(plain(100_000));
      expect(doc.length).toBeGreaterThan(1_000_000);
      expect(refusal(read, doc).reason).toBe<XmlRefusalReason>("attributes");
      const rest = plain(100_000 - DEFAULT_MAX_ATTRIBUTES, DEFAULT_MAX_ATTRIBUTES);
      const unread = soap(`${plain(DEFAULT_MAX_ATTRIBUTES - 1)} <<<&&& unterminated="${rest}`);
      expect(refusal(read, unread).reason).toBe<XmlRefusalReason>("attributes");
    });

    it("refuses 30,000 namespace declarations on one element, before reading past the limit", () => {
      expect(refusal(read, soap(declarations(30_000))).reason).toBe<XmlRefusalReason>("attributes");
      const unread = soap(
        `${declarations(DEFAULT_MAX_ATTRIBUTES - 1)} <<<&&& unterminated="${declarations(30_000)}`,
      );
      expect(refusal(read, unread).reason).toBe<XmlRefusalReason>("attributes");
    });
  });

  describe("maxElements (default 1,000,000, the root included)", () => {
    it.each([
      ["the root alone at a limit of 1", "<a/>", 1, true],
      ["a child one past a limit of 1", "<a><b/></a>", 1, false],
      ["a limit of 5 reached", "<a><b/><b></b><c><d/></c></a>", 5, true],
      ["a limit of 5 passed by a nested element", "<a><b/><b></b><c><d><e/></d></c></a>", 5, false],
      ["a limit of 5 passed by a sibling", "<a><b/><b></b><c><d/></c><f/></a>", 5, false],
      ["a limit of zero", "<a/>", 0, false],
    ] as const)("%s", (_what, doc, maxElements, ok) => {
      if (ok) expect(read(doc, { maxElements }).local).toBe("a");
      else expect(refusal(read, doc, { maxElements }).reason).toBe<XmlRefusalReason>("elements");
    });

    it("refuses at the start tag that passes the limit, before reading what follows", () => {
      const e = refusal(read, "<a><b/><b/><b/><c <<<&&& unterminated", { maxElements: 4 });
      expect(e.reason).toBe<XmlRefusalReason>("elements");
      expect(e.message).toBe("The document has more than 4 elements, comments and other nodes.");
    });

    it("counts a comment, a CDATA section and a PI as one node each, and the markup inside them not at all", () => {
      const doc = "<a><!-- <b/><b/> --><![CDATA[<b/><b/>]]><?pi <b/>?></a>";
      expect(read(doc, { maxElements: 4 }).text).toBe("<b/><b/>");
      expect(refusal(read, doc, { maxElements: 3 }).reason).toBe<XmlRefusalReason>("elements");
    });

    it("refuses a flood of comments like one of elements (found by the attack suite: a million took 0.3 s)", () => {
      const doc = `<a>${"x<!---->".repeat(1001)}</a>`;
      expect(refusal(read, doc, { maxElements: 1001 }).reason).toBe<XmlRefusalReason>("elements");
      expect(read(doc, { maxElements: 1002 }).text).toBe("x".repeat(1001));
    });

    it("does not count the XML declaration, and counts PIs in the prolog", () => {
      expect(read('<?xml version="1.0"?><a/>', { maxElements: 1 }).local).toBe("a");
      expect(
        refusal(read, '<?xml version="1.0"?><?pi x?><a/>', { maxElements: 1 }).reason,
      ).toBe<XmlRefusalReason>("elements");
      expect(refusal(read, "<!-- c --><a/>", { maxElements: 1 }).reason).toBe<XmlRefusalReason>("elements");
    });
  });
});

describe("readXml at the default element limit", () => {
  it("reads 1,000,000 elements and refuses 1,000,001", () => {
    const body = "<a/>".repeat(DEFAULT_READER_MAX_ELEMENTS - 1);
    expect(readXml(`<r>${body}</r>`).children.length).toBe(DEFAULT_READER_MAX_ELEMENTS - 1);
    expect(refusal(readXml, `<r>${body}<a/></r>`).reason).toBe<XmlRefusalReason>("elements");
  });
});

describe("readXml works linearly", () => {
  /**
   * 31 levels of 64 namespace declarations each (1,984 bindings in scope) or 64 plain attributes,
   * then `leaves` elements at depth 32 whose names and attributes use prefixes declared at the
   * root: the bindings a lookup that searches them would walk the most.
   */
  function deep(leaves: number, bound: boolean, leafAttributes: number): string {
    let open = "";
    for (let d = 0; d < 31; d++) {
      let attrs = "";
      for (let k = 0; k < DEFAULT_MAX_ATTRIBUTES; k++) {
        attrs += bound || (d === 0 && k < 8) ? ` xmlns:p${d}_${k}="urn:${d}:${k}"` : ` a${k}="1"`;
      }
      open += `<e${attrs}>`;
    }
    let leaf = "<p0_0:x";
    for (let k = 1; k <= leafAttributes; k++) leaf += ` p0_${k}:a="1"`;
    return open + `${leaf}/>`.repeat(leaves) + "</e>".repeat(31);
  }

  it("reads the most attributes at each of 32 depths with 100,000 elements", () => {
    // What it reads; how fast is the next test's ratio (a time bound here would measure the machine).
    const root = readXml(deep(100_000 - 31, true, 1));
    let leafParent = root;
    for (let d = 1; d < 31; d++) leafParent = leafParent.children[0];
    expect(leafParent.children.length).toBe(100_000 - 31);
    expect(leafParent.children[0]).toMatchObject({ ns: "urn:0:0", local: "x", prefix: "p0_0" });
    expect(leafParent.children[0].attrs).toEqual([{ ns: "urn:0:1", local: "a", value: "1" }]);
  });

  it("looks a prefix up as fast among 1,984 bindings in scope as among 8", () => {
    const many = deep(20_000, true, 7);
    const few = deep(20_000, false, 7);
    // Searching the bindings made this ~8 times slower; a map makes it ~1.
    expect(
      timeRatio(
        () => readXml(few),
        () => readXml(many),
      ),
    ).toBeLessThan(3);
  });

  it("reads 16,000 attributes on one element about as fast per attribute as 250", () => {
    // n declarations and n attributes using them (maxAttributes raised). The same 32,000 attributes
    // are read as one element and as 64 elements of 500 in 64 documents: a linear reader takes
    // about as long either way (~1.6 times here, hash tables outgrowing the caches), pairwise
    // duplicate checks or searched bindings ~80 times longer for the one large element.
    const doc = (n: number): string => {
      let s = declarations(n);
      for (let k = 0; k < n; k++) s += ` p${k}:a="1"`;
      return `<r${s}/>`;
    };
    const small = doc(250);
    const large = doc(16_000);
    const readSmall = (): void => {
      for (let k = 0; k < 64; k++) readXml(small, { maxAttributes: 500 });
    };
    const readLarge = (): void => void readXml(large, { maxAttributes: 32_000 });
    expect(timeRatio(readSmall, readLarge)).toBeLessThan(8);
  });
});

describe("readXml's tree stays within its documented multiple of the input", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;

  /** Heap bytes the tree of doc holds, per input code unit. */
  function heapPerInputUnit(doc: string): number {
    doc.charCodeAt(0); // make the input flat before measuring
    gc();
    gc();
    const before = getHeapStatistics().used_heap_size;
    const root = readXml(doc, { maxElements: 10_000_000 });
    gc();
    gc();
    const grown = getHeapStatistics().used_heap_size - before;
    expect(root.local).toBe("r"); // keeps the tree alive until measured
    return grown / doc.length;
  }

  // tree.ts: under 24 heap bytes per input code unit. The old tree took ~29 (`<a/>`) and ~35 (`<a x="1"/>`).
  const MULTIPLE = 24;

  it("8 MB of <a/>", () => {
    expect(heapPerInputUnit(`<r>${"<a/>".repeat(2_000_000)}</r>`)).toBeLessThan(MULTIPLE);
  });

  it.each([
    ['<a x="1"/>', '<a x="1"/>'],
    ['<a b=""/> (the worst shape)', '<a b=""/>'],
    ["<a>t</a>", "<a>t</a>"],
  ])("4 MB of %s", (_what, unit) => {
    expect(heapPerInputUnit(`<r>${unit.repeat(Math.floor(4_000_000 / unit.length))}</r>`)).toBeLessThan(
      MULTIPLE,
    );
  });
});
