// Another service's output carries nothing of ExternalAPIService: no name, namespace, credential or example
// of it in any file (the README's examples come from the spec's own operations and credentials).

import { afterAll, describe, expect, it } from "vitest";
import { examples } from "../../generator/emit/readme.js";
import { generateFiles } from "../../generator/generate.js";
import { modelOf, removeTempDirs, SMALL_SPEC, smallSpecWith } from "./fixtures/index.js";

afterAll(removeTempDirs);

const FOREIGN = [
  "ExternalAPIService",
  "tempuri",
  "strUsername",
  "strPassword",
  "InsertSubscriber",
  "external-api-service",
];

describe("output of another service", { timeout: 60_000 }, () => {
  it("test/generator/fixtures/small.yaml generates no trace of ExternalAPIService anywhere", async () => {
    const generated = await generateFiles({ spec: SMALL_SPEC });
    expect(generated.ok).toBe(true);
    if (!generated.ok) return;
    expect(generated.files.length).toBeGreaterThan(10);
    for (const file of generated.files) {
      for (const word of FOREIGN)
        expect(file.content.includes(word), `${file.path} contains ${word}`).toBe(false);
      expect(file.path.includes("ExternalAPIService"), file.path).toBe(false);
    }
    const readme = generated.files.find((file) => file.path === "README.md")!.content;
    // The examples call the spec's first operation with its own parameters, and set its own credential.
    expect(readme).toContain(
      'const result = await client.AddItem({ label: "label", color: "red", quantity: 1, digit: "0" });',
    );
    expect(readme).toContain('  user: "user",\n');
    expect(readme).toContain(
      'createClientWith(soap12, { baseUrl: "https://host/path", user: "user", platform: browser });',
    );
    expect(readme).toContain(
      '  async AddItem(params, context) {\n    if (context.credentials.user !== "user") {',
    );
    expect(readme).toContain("    return 1n;\n");
    expect(readme).not.toMatch(/username|password: "p"/);
    const model = generated.files.find((file) => file.path === "model.ts")!.content;
    expect(model).toContain("`operations.AddItem` is that operation's descriptor");
  });

  it("a service without credentials gets examples without any", () => {
    const model = modelOf(
      smallSpecWith([
        "  credentials:\n    - { name: user, type: string, required: true, doc: User name. }\n",
        "",
      ]),
    );
    const made = examples(model);
    expect(made.credentialLines).toEqual([]);
    expect(made.credentialsInline).toBe("");
    expect(made.handlerLines).toEqual(["return 1n;"]);
    expect(made.operation).toBe("AddItem");
  });

  it("examples fit the types: longs as bigint, allowed values, formats, and an operation without parameters", () => {
    const model = modelOf(
      smallSpecWith([
        "      - name: AddItem\n        doc: Adds an item.\n",
        "      - name: Ping\n        doc: Pings.\n        result: { kind: scalar, type: int, doc: One. }\n      - name: AddItem\n        doc: Adds an item.\n",
      ]),
    );
    const made = examples(model);
    expect(made.operation).toBe("Ping");
    expect(made.callArgs).toBe("{}");
    expect(made.handlerLines.at(-1)).toBe("return 1;");
  });
});
