// Golden wire files: every operation over every binding, request and success response as exact bytes,
// checked in under test/wire/golden/<binding>/<Op>.{request,response}.http. Each is also decoded back
// on the other side, so the bytes on file are proven to carry the sample values intact.
// Regenerate deliberately with `npx vitest run test/wire -u`, then review the diff against
// docs/wire.md: these files are the contract with existing ASMX clients.

import { readdirSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../../generated/server-model.js";
import { bindingFactories, bindingNames } from "../fixtures/bindings.js";
import type { OperationModel, BindingName } from "../../generated/runtime/model.js";
import { readParams, writeParams, type ParamValues } from "../../generated/runtime/codec/params.js";
import { readXmlWithFastXmlParser } from "../oracle/fxp.js";
import { readXml } from "../../generated/runtime/xml/scan.js";
import { CREDENTIALS, samples } from "../fixtures/samples.js";
import { requestMessage, responseMessage } from "./http-message.js";

type OpName = keyof typeof samples;
const opNames = Object.keys(operations) as OpName[];

function model(op: OpName): OperationModel {
  return operations[op];
}

function sentValues(op: OpName): ParamValues {
  return { strUsername: CREDENTIALS.username, strPassword: CREDENTIALS.password, ...samples[op].params };
}

/**
 * What the server reads from the sample call: defaults replace absent or empty optional strings, and
 * where the binding sends every field (HTTP GET/POST) an absent one arrives as "".
 */
function receivedValues(op: OpName, presence: "element" | "field"): ParamValues {
  const sent = sentValues(op);
  const want: ParamValues = {};
  for (const p of model(op).params) {
    let v = sent[p.name];
    if (v === undefined && presence === "field") v = "";
    if (v === undefined || v === "") v = p.default ?? v;
    want[p.name] = v;
  }
  return want;
}

describe.each(bindingNames)("%s wire bytes", (name: BindingName) => {
  const server = bindingFactories[name](service, { readXml });
  const client = bindingFactories[name](service, { readXml });
  const clientFxp = bindingFactories[name](service, { readXml: readXmlWithFastXmlParser });

  describe.each(opNames)("%s", (op) => {
    const texts = writeParams(model(op), sentValues(op));
    const request = client.encodeRequest(model(op), texts);

    it("request matches the golden file and decodes to the sample params", async () => {
      await expect(requestMessage(request)).toMatchFileSnapshot(`golden/${name}/${op}.request.http`);
      const decoded = server.decodeRequest(request);
      expect(decoded.op.name).toBe(op);
      expect(readParams(decoded.op, decoded.texts, server.presence)).toEqual(
        receivedValues(op, server.presence),
      );
    });

    it("response matches the golden file and decodes to the sample result", async () => {
      const values = readParams(model(op), server.decodeRequest(request).texts, server.presence);
      const response = server.encodeResponse(model(op), samples[op].result, values);
      await expect(responseMessage(response)).toMatchFileSnapshot(`golden/${name}/${op}.response.http`);
      expect(client.decodeResponse(model(op), response, sentValues(op))).toEqual(samples[op].result);
      expect(clientFxp.decodeResponse(model(op), response, sentValues(op))).toEqual(samples[op].result);
    });
  });
});

it("golden/ holds exactly the files of the current operations and bindings (none left over)", () => {
  const dir = fileURLToPath(new URL("./golden/", import.meta.url));
  const onDisk = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${relative(dir, e.parentPath)}/${e.name}`)
    .sort();
  const want = bindingNames
    .flatMap((b) => opNames.flatMap((op) => [`${b}/${op}.request.http`, `${b}/${op}.response.http`]))
    .sort();
  expect(onDisk).toEqual(want);
});
