import { describe, expect, it } from "vitest";
import { XmlOut } from "../../runtime/xml/out.js";

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** One small document written through every XmlOut method. */
function sample(out: XmlOut): string {
  return out
    .open("Root", ' xmlns="http://tempuri.org/"')
    .open("Item")
    .leaf("Id", "1")
    .empty("Nothing")
    .leaf("Name", "t1", ' lang="en"')
    .close("Item")
    .close("Root")
    .toString();
}

describe("XmlOut", () => {
  it.each<{ name: string; build: () => string; want: string }>([
    {
      name: "compact",
      build: () => sample(new XmlOut(false)),
      want: '<Root xmlns="http://tempuri.org/"><Item><Id>1</Id><Nothing /><Name lang="en">t1</Name></Item></Root>',
    },
    {
      name: "compact ignores the starting depth",
      build: () => sample(new XmlOut(false, 3)),
      want: '<Root xmlns="http://tempuri.org/"><Item><Id>1</Id><Nothing /><Name lang="en">t1</Name></Item></Root>',
    },
    {
      name: "indented",
      build: () => sample(new XmlOut(true)),
      want: [
        '<Root xmlns="http://tempuri.org/">',
        "  <Item>",
        "    <Id>1</Id>",
        "    <Nothing />",
        '    <Name lang="en">t1</Name>',
        "  </Item>",
        "</Root>",
      ].join("\n"),
    },
    {
      name: "indented from depth 1: the first line is not indented, the rest are",
      build: () => sample(new XmlOut(true, 1)),
      want: [
        '<Root xmlns="http://tempuri.org/">',
        "    <Item>",
        "      <Id>1</Id>",
        "      <Nothing />",
        '      <Name lang="en">t1</Name>',
        "    </Item>",
        "  </Root>",
      ].join("\n"),
    },
    {
      name: "indented after a raw declaration",
      build: () =>
        new XmlOut(true)
          .raw(DECLARATION)
          .leaf("long", "1234567890123", ' xmlns="http://tempuri.org/"')
          .toString(),
      want: `${DECLARATION}\n<long xmlns="http://tempuri.org/">1234567890123</long>`,
    },
    {
      name: "an empty root",
      build: () =>
        new XmlOut(true).raw(DECLARATION).empty("ArrayOfX", ' xmlns="http://tempuri.org/"').toString(),
      want: `${DECLARATION}\n<ArrayOfX xmlns="http://tempuri.org/" />`,
    },
    {
      name: "raw markup is written as is, without a line break",
      build: () => new XmlOut(true).open("a").raw("<b>&amp;</b>").close("a").toString(),
      want: "<a><b>&amp;</b>\n</a>",
    },
    {
      name: "nothing written",
      build: () => new XmlOut(true).toString(),
      want: "",
    },
  ])("$name", ({ build, want }) => {
    expect(build()).toBe(want);
  });

  it.each([
    { given: "a & b", want: "a &amp; b" },
    { given: "<script>", want: "&lt;script&gt;" },
    { given: "]]>", want: "]]&gt;" },
    { given: "ÅÄÖ 😀", want: "ÅÄÖ 😀" },
    { given: 'say "hi" it\'s', want: 'say "hi" it\'s' },
    { given: "line\r\nnext\ttab", want: "line&#xD;\nnext\ttab" },
  ])("leaf escapes text: $given", ({ given, want }) => {
    expect(new XmlOut(false).leaf("t", given).toString()).toBe(`<t>${want}</t>`);
  });

  it("leaf writes an empty string as an empty element, as .NET does", () => {
    expect(new XmlOut(true).open("r").leaf("t", "", ' a="1"').close("r").toString()).toBe(
      '<r>\n  <t a="1" />\n</r>',
    );
  });

  it("leaf refuses text XML cannot carry", () => {
    expect(() => new XmlOut(false).leaf("t", "bell\u0007")).toThrow(RangeError);
  });
});
