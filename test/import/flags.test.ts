// [Flags] enums (docs/asmx-evidence/enums.md) without Mono: Enums.asmx's recorded WSDL imported and
// generated; every exchange recorded against the real ASMX host is sent to our generated server, which must
// answer as the host did (but where noted); our client reads and writes flags on every binding.
// (constructs-roundtrip.test.ts runs the same import against the live host, both ways, when Mono is installed.)

import { describe, expect, it } from "vitest";
import { serveConstruct } from "../headers/imported.js";
import { enumHandlers } from "./enum-handlers.js";
import { replayRecorded } from "./replay.js";

const served = serveConstruct("Enums", enumHandlers);

describe("Enums: [Flags] as a set of names", () => {
  it("imports the xs:list as a flags enum", () => {
    expect(served.imported.spec.enums?.Permissions).toEqual({
      doc: "Imported; describe it.",
      values: ["None", "Read", "Write", "Delete", "All"],
      flags: true,
    });
    expect(served.imported.warnings).toEqual([]);
  });

  it("publishes Permissions as the host does: a list of the enumeration", async () => {
    const { ours: wsdl, theirs } = await served.wsdls();
    const type = (text: string) =>
      text.slice(text.indexOf('<s:simpleType name="Permissions">'), text.indexOf("</s:list>") + 9);
    expect(type(wsdl)).toBe(type(theirs));
    expect(type(wsdl)).toContain('<s:enumeration value="All" />');
  });

  it("answers every recorded Enums exchange as the host did, but for renamed values on HTTP", async () => {
    const replayed = await replayRecorded("Enums", served.ours);
    expect(replayed.length).toBeGreaterThanOrEqual(15);
    // HTTP GET/POST: ASMX's Enum.Parse takes the C# names, which the WSDL does not carry: we take the XML
    // names there too (docs/asmx-evidence/enums.md). A refusal's text is ours.
    const differ = new Set(["get-raise-renamed", "get-raise-clr-name"]);
    for (const r of replayed) {
      const what = `${r.name}: ${r.note}`;
      if (differ.has(r.name)) {
        expect(r.status, what).not.toBe(r.hostStatus);
        continue;
      }
      expect(r.status, what).toBe(r.hostStatus);
      if (r.status === 200) expect(r.body, what).toBe(r.hostBody);
    }
  });

  it("our client writes and reads flags on every binding", async () => {
    for (const binding of ["soap11", "soap12", "httpGet", "httpPost"]) {
      const client = served.imported.createClient({ baseUrl: served.ours, binding });
      expect(await client.Grant!({ current: ["Read"] }), binding).toEqual(["Read", "Write"]);
      expect(await client.Grant!({ current: ["Read", "Delete"] }), binding).toEqual(["All"]);
      expect(await client.Grant!({ current: [] }), binding).toEqual(["Write"]);
      await expect(client.Grant!({ current: ["Read", "Execute"] }), binding).rejects.toThrow(
        /Grant: parameter current is not a valid value for Permissions \(an array of None, Read, Write, Delete, All\)/,
      );
      await expect(client.Grant!({ current: "Read" }), binding).rejects.toThrow(/not a valid value/);
    }
  });
});
