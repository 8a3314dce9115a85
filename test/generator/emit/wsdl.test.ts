import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emitWsdl } from "../../../generator/emit/wsdl.js";
import { withHeader } from "../../../generator/generated-file.js";
import { renderWsdl } from "../../../runtime/server/wsdl.js";
import { docsOf, modelOf, SMALL_TEXT } from "../fixtures/index.js";
import { serviceDocs, serviceModel } from "./models.js";

describe("emitWsdl", () => {
  it("emits only {Service}.wsdl, the runtime's WSDL located at http://localhost/{endpoint}", () => {
    const model = modelOf(SMALL_TEXT);
    const docs = docsOf(SMALL_TEXT);
    expect(emitWsdl(model, { docs })).toEqual([
      {
        path: "Shop.wsdl",
        content: renderWsdl(model, docs, "http://localhost/Shop.asmx"),
        description:
          "WSDL 1.1 of the service, with the placeholder address http://localhost/Shop.asmx (set wsdlAddress in easgen.config.json for the real one; ?WSDL on a running server names its own).",
      },
    ]);
  });

  it("writes the configured wsdlAddress instead of the placeholder", () => {
    const model = modelOf(SMALL_TEXT);
    const docs = docsOf(SMALL_TEXT);
    const [file] = emitWsdl(model, { docs, wsdlAddress: "https://api.example.com/shop/" });
    expect(file!.content).toBe(renderWsdl(model, docs, "https://api.example.com/shop/Shop.asmx"));
    expect(file!.content).not.toContain("localhost");
    expect(file!.description).toBe(
      "WSDL 1.1 of the service, located at https://api.example.com/shop/Shop.asmx.",
    );
  });

  it("gives the bytes of the committed generated/ExternalAPIService.wsdl", () => {
    const [file] = emitWsdl(serviceModel(), { docs: serviceDocs() });
    const committed = readFileSync(
      new URL("../../../generated/ExternalAPIService.wsdl", import.meta.url),
      "utf8",
    );
    expect(withHeader(file!, "spec/ExternalAPIService.yaml").content === committed).toBe(true);
  });
});
