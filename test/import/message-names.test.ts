// Overloads and MessageNames (docs/asmx-evidence/overloads.md) without Mono: Overloads.asmx's recorded WSDL
// imported and generated; every exchange recorded against the real ASMX host is sent to our generated
// server, which must answer as the host did; our client calls our server by the wire names; the WSDL we
// publish names the dotted MessageName as the host's does. (constructs-roundtrip.test.ts runs the same
// import against the live host, both ways, when Mono is installed.)

import { describe, expect, it } from "vitest";
import { serveConstruct } from "../headers/imported.js";
import { replayRecorded } from "./replay.js";

const served = serveConstruct("Overloads", {
  Add: ({ a, b }: { a: number; b: number }) => a + b,
  AddDoubles: ({ a, b }: { a: number; b: number }) => a + b,
  AddThree: ({ a, b, c }: { a: number; b: number; c: number }) => a + b + c,
  Ping: () => "pong",
});

describe("Overloads: a MessageName with a dot", () => {
  it("imports Service.Ping as Ping, its MessageName kept", () => {
    expect(served.imported.yaml).toContain("- name: Ping\n        messageName: Service.Ping\n");
    expect(served.imported.warnings).toEqual([]);
  });

  it("answers every recorded Overloads exchange as the host did", async () => {
    const replayed = await replayRecorded("Overloads", served.ours);
    expect(replayed.length).toBeGreaterThanOrEqual(7);
    for (const r of replayed) {
      if (r.name === "soap11-adddoubles-add-action") {
        // The one difference, on purpose: the host runs Add with a and b defaulted to 0; we refuse a
        // SOAPAction that names another operation than the Body's.
        expect(r.status).toBe(500);
        expect(r.body).toContain("The SOAP action names Add but the Body holds AddDoubles.");
        continue;
      }
      expect(r.status, `${r.name}: ${r.note}`).toBe(r.hostStatus);
      expect(r.body, `${r.name}: ${r.note}`).toBe(r.hostBody);
    }
  });

  it("our client calls it by its wire name on every binding", async () => {
    for (const binding of ["soap11", "soap12", "httpGet", "httpPost"]) {
      const client = served.imported.createClient({ baseUrl: served.ours, binding });
      expect(await client.Ping!(), binding).toBe("pong");
      expect(await client.AddDoubles!({ a: 1.5, b: 2 }), binding).toBe(3.5);
    }
  });

  it("publishes Ping as the host does: the method's name, its input and output named Service.Ping", async () => {
    const { ours: wsdl, theirs } = await served.wsdls();
    // Every line naming Service.Ping, but for the documentation the import could not keep.
    const lines = (text: string) => text.split("\n").filter((l) => l.includes("Service.Ping"));
    expect(lines(wsdl)).toEqual(lines(theirs));
    expect(lines(wsdl).length).toBeGreaterThanOrEqual(20);
    expect(wsdl).toContain('<wsdl:operation name="Ping">');
  });
});
