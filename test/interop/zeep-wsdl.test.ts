// Python's zeep reads the WSDL we publish: all four ports, all operations, parameters in wire order.
// Needs Debian's python with zeep (apt-get install python3-zeep); the script refuses network loads.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasZeep, PYTHON } from "../fixtures/system-component.js";
import { emitWsdl } from "../../generator/emit/wsdl.js";
import { withHeader } from "../../generator/generated-file.js";
import { serviceDocs, serviceModel } from "../generator/emit/models.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

const SCRIPT = fileURLToPath(new URL("./zeep_wsdl.py", import.meta.url));
const PROBE = "InsertSubscriberSid";

interface ZeepView {
  ports: Record<string, string[]>;
  inputs: Record<string, string[]>;
  soapActions: Record<string, string>;
}

const zeepInstalled = hasZeep();

describe.runIf(zeepInstalled)("zeep reads the WSDL", () => {
  const model = serviceModel();
  const dir = mkdtempSync(join(tmpdir(), "zeep-wsdl-"));
  let view: ZeepView;

  beforeAll(() => {
    // The file as committed, @generated comment included, so the header is proven harmless too.
    const wsdl = emitWsdl(model, { docs: serviceDocs() }).find((f) => f.path.endsWith(".wsdl"))!;
    const wsdlPath = join(dir, "ExternalAPIService.wsdl");
    writeFileSync(wsdlPath, withHeader(wsdl, "spec/ExternalAPIService.yaml").content);
    let out: string;
    try {
      out = execFileSync(PYTHON, [SCRIPT, wsdlPath, PROBE], { encoding: "utf8", timeout: 60_000 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? "";
      throw new Error(
        `zeep could not read the WSDL (needs ${PYTHON} with python3-zeep: apt-get install python3-zeep)\n${stderr}`,
      );
    }
    view = JSON.parse(out) as ZeepView;
  }, 90_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the four ports, each with every operation of the spec", () => {
    const operations = model.operations.map((op) => op.name).sort();
    expect(operations).toEqual([...SPEC_OPERATIONS].sort());
    expect(Object.keys(view.ports).sort()).toEqual([
      "ExternalAPIServiceHttpGet",
      "ExternalAPIServiceHttpPost",
      "ExternalAPIServiceSoap",
      "ExternalAPIServiceSoap12",
    ]);
    for (const names of Object.values(view.ports)) expect(names).toEqual(operations);
  });

  it(`reads ${PROBE}'s parameters in wire order on every port`, () => {
    const order = [
      "strUsername",
      "strPassword",
      "strEmail",
      "strName",
      "strFormat",
      "strCountryCode",
      "strPhoneNumber",
      "strMailingListID",
    ];
    expect(model.operations.find((op) => op.name === PROBE)!.params.map((p) => p.name)).toEqual(order);
    expect(Object.keys(view.inputs)).toHaveLength(4);
    for (const names of Object.values(view.inputs)) expect(names).toEqual(order);
  });

  it("reads the soapAction on both SOAP ports", () => {
    expect(view.soapActions).toEqual({
      ExternalAPIServiceSoap: `${model.namespace}${PROBE}`,
      ExternalAPIServiceSoap12: `${model.namespace}${PROBE}`,
    });
  });
});
