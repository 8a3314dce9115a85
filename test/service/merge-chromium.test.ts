// Merged HTML as a browser reads it (headless Chromium's DOMParser, scripting off as in a mail client):
// seeded random templates built from HTML pieces (tags, quotes, comments, raw text elements, references,
// merge tags; no `:` and no `on` in the template's own text), merged with hostile values. What the
// browser builds from a merge must (1) have the same elements and attribute names as the same template
// merged with neutral values of the same lengths, so no value adds a tag or an attribute, and (2) have every URL attribute's
// URL (resolved against https://base.invalid/, srcset and ping per URL) in http, https or mailto: so no
// value gives a link any other scheme. Without Chromium the file is skipped with a note, unless CI is set.

import { chromium, type Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { type MergeValues, mergeHtml } from "../../service/common/merge.js";
import { Random } from "../fixtures/random.js";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.js";

const PIECES = [
  '<a href="',
  "<a href='",
  "<a href=",
  "<a HREF = ",
  '<img src="',
  "<img src=",
  '<img srcset="',
  '<form action="',
  '<td background="',
  '<p class="',
  "<p class=",
  "<p ",
  '"',
  "'",
  ">",
  " ",
  "\t",
  "<",
  "</",
  "a",
  "p",
  "/",
  "=",
  "&",
  "#",
  "&#106;",
  "&#x6A;",
  "java",
  "http",
  "//ok.example/",
  "<!--",
  "-->",
  "--",
  "-",
  "!",
  "<!",
  "<?",
  "<script>",
  "</script>",
  "<style>",
  "</style>",
  "</style ",
  "<title>",
  "</title>",
  "<textarea>",
  "</textarea>",
  "<noscript>",
  "</noscript>",
  "<xmp>",
  "</xmp>",
  "</a>",
  "x",
  "{{DD1}}",
  "{{DD1}}",
  "{{DD2}}",
  "{{Name}}",
];

const HOSTILE = [
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " \u0001java\tscript:alert(1)",
  "vbscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "script:alert(1)",
  "&#106;avascript:alert(1)",
  '" onmouseover="alert(1)',
  "' onmouseover='alert(1)",
  "x onmouseover=alert(1)",
  "<img src=x onerror=alert(1)>",
  "--><img src=x onerror=alert(1)>",
  "</script><img src=x onerror=alert(1)>",
  "/script><img src=x onerror=alert(1)>",
  "img src=x onerror=alert(1)",
  "ipt><img src=x onerror=alert(1)>",
  "",
  "-",
  "!",
  ">",
  "=",
  "jar:https://ok.example/!/",
  "https://ok.example/",
];

const values = (dd1: string, dd2: string, name: string): MergeValues => ({
  name,
  email: "ann@example.com",
  fields: new Map([
    [1, dd1],
    [2, dd2],
  ]),
});

let launching: Promise<Browser> | undefined;
afterAll(async () => {
  if (launching) await (await launching.catch(() => undefined))?.close();
});

describe.runIf(hasChromium())("merged HTML in Chromium", () => {
  it("no value adds an element or attribute, or gives a URL attribute a scheme but http, https or mailto", async () => {
    launching ??= chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
      timeout: 20_000,
    });
    const page = await (await launching).newPage();
    const random = new Random(27112026);
    const cases: { template: string; hostile: string; neutral: string; label: string }[] = [];
    for (let t = 0; t < 400; t++) {
      let template = "";
      const count = 3 + random.int(25);
      for (let k = 0; k < count; k++) template += random.pick(PIECES);
      for (let v = 0; v < 6; v++) {
        const [a, b, c] = [random.pick(HOSTILE), random.pick(HOSTILE), random.pick(HOSTILE)];
        // The neutral values are as long as the hostile ones: an empty value stays empty (text before <title>
        // moves it into the body, which is the tree, not the tokenizer).
        const x = (value: string) => value.replace(/./gsu, "x");
        cases.push({
          template,
          hostile: mergeHtml(template, values(a, b, c)),
          neutral: mergeHtml(template, values(x(a), x(b), x(c))),
          label: JSON.stringify([template, a, b, c]),
        });
      }
    }
    const verdicts = await page.evaluate(
      (items) => {
        const URLS = new Set([
          "href",
          "src",
          "action",
          "formaction",
          "background",
          "cite",
          "poster",
          "longdesc",
          "usemap",
          "codebase",
          "data",
          "archive",
          "classid",
          "profile",
          "manifest",
          "icon",
          "lowsrc",
          "dynsrc",
          "xlink:href",
          "srcset",
          "ping",
        ]);
        const skeleton = (html: string) => {
          const doc = new DOMParser().parseFromString(html, "text/html");
          return Array.from(doc.querySelectorAll("*"))
            .map(
              (el) =>
                `${el.tagName}(${Array.from(el.attributes)
                  .map((a) => a.name)
                  .join(",")})`,
            )
            .join(" ");
        };
        const badUrls = (html: string) => {
          const doc = new DOMParser().parseFromString(html, "text/html");
          const bad: string[] = [];
          for (const el of Array.from(doc.querySelectorAll("*"))) {
            for (const attr of Array.from(el.attributes)) {
              if (!URLS.has(attr.name)) continue;
              const urls =
                attr.name === "srcset"
                  ? attr.value.split(",").map((c: string) => c.trim().split(/\s+/)[0] ?? "")
                  : attr.name === "ping"
                    ? attr.value.trim().split(/\s+/)
                    : [attr.value];
              for (const url of urls) {
                let protocol = "";
                try {
                  protocol = new URL(url, "https://base.invalid/").protocol;
                } catch {
                  continue; // not a URL a browser follows
                }
                if (!["http:", "https:", "mailto:"].includes(protocol))
                  bad.push(`${attr.name}=${JSON.stringify(attr.value)} (${protocol})`);
              }
            }
          }
          return bad;
        };
        return items.map((item) => ({
          same: skeleton(item.hostile) === skeleton(item.neutral),
          bad: badUrls(item.hostile),
          hostile: skeleton(item.hostile),
          neutral: skeleton(item.neutral),
        }));
      },
      cases.map(({ hostile, neutral }) => ({ hostile, neutral })),
    );
    const failures = verdicts
      .map((v, i) => ({ ...v, label: cases[i]!.label, html: cases[i]!.hostile }))
      .filter((v) => !v.same || v.bad.length > 0)
      .slice(0, 5)
      .map(
        (v) =>
          `${v.label}\n  -> ${v.html}\n  ${v.same ? "" : `elements differ: ${v.hostile} vs neutral ${v.neutral}`} ${v.bad.join("; ")}`,
      );
    expect(failures).toEqual([]);
    expect(cases.length).toBe(2400);
  }, 120_000);
});
