// The reference peer is only as good as its fidelity to docs/wire.md: here it reproduces
// that page's samples (../fixtures/wire-samples.ts) byte for byte (requests as a .NET client sends them,
// answers as ASMX writes them).

import { describe, expect, it } from "vitest";
import * as wire from "../fixtures/wire-samples.js";
import { referenceRequest } from "./reference/request.js";
import { referenceResponse, type WireRecord } from "./reference/response.js";
import { loadReferenceService, type RefOperation } from "./reference/spec.js";

const service = loadReferenceService();
function op(name: string): RefOperation {
  const found = service.operations.get(name);
  if (!found) throw new Error(name);
  return found;
}

describe("reference requests match docs/wire.md", () => {
  it("§2 SOAP 1.1 InsertSubscriberSid", () => {
    expect(referenceRequest(op("InsertSubscriberSid"), "soap11", wire.SOAP11_REQUEST_VALUES)).toEqual({
      method: "POST",
      path: "",
      query: "",
      headers: wire.SOAP11_REQUEST_HEADERS,
      body: wire.SOAP11_REQUEST_BODY,
    });
  });

  it("§3 SOAP 1.2 SendSmsWithSenderName", () => {
    const request = referenceRequest(op("SendSmsWithSenderName"), "soap12", wire.SOAP12_REQUEST_VALUES);
    expect(request.headers).toEqual({ "content-type": wire.SOAP12_REQUEST_CONTENT_TYPE });
    expect(request.body).toBe(wire.SOAP12_REQUEST_BODY);
  });

  it("§4 HTTP GET and HTTP POST", () => {
    const get = referenceRequest(op("GetReportViewsByDateInterval"), "httpGet", wire.GET_REQUEST_VALUES);
    expect(`${get.method} /ExternalAPIService.asmx${get.path}?${get.query}`).toBe(wire.GET_REQUEST_LINE);
    const post = referenceRequest(
      op("InsertCsvSubscribersWithDemDataUpdateOption"),
      "httpPost",
      wire.POST_REQUEST_VALUES,
    );
    expect(post).toEqual({
      method: "POST",
      path: "/InsertCsvSubscribersWithDemDataUpdateOption",
      query: "",
      headers: wire.POST_REQUEST_HEADERS,
      body: wire.POST_REQUEST_BODY,
    });
  });
});

describe("reference responses match docs/wire.md", () => {
  it("§2 SOAP 1.1 scalar", () => {
    expect(referenceResponse(op("InsertSubscriberSid"), "soap11", "1234567890123", {}).body).toBe(
      wire.SOAP11_RESPONSE_BODY,
    );
  });

  it("§3 SOAP 1.2 single record", () => {
    const answer = referenceResponse(
      op("SendSmsWithSenderName"),
      "soap12",
      { Id: "99", CreditCost: "1.5", TotalCredits: "98.25" },
      {},
    );
    expect(answer.headers).toEqual({ "content-type": "application/soap+xml; charset=utf-8" });
    expect(answer.body).toContain(wire.SOAP_RECORD_FRAGMENT);
  });

  it("§4 HTTP documents: scalar, list, empty list, record", () => {
    expect(referenceResponse(op("InsertSubscriberSid"), "httpGet", "1234567890123", {}).body).toBe(
      wire.LONG_DOCUMENT,
    );
    const trigger = {
      Id: "1",
      Name: "t1",
      Created: "2024-05-06T07:08:09",
      MailinglistId: "5",
      MailinglistName: "L",
    };
    expect(referenceResponse(op("GetTriggerIdForAccount"), "httpPost", [trigger], {}).body).toBe(
      wire.TRIGGER_LIST_DOCUMENT,
    );
    expect(referenceResponse(op("GetNewsletterFilters"), "httpGet", [], {}).body).toBe(
      wire.EMPTY_LIST_DOCUMENT,
    );
    expect(
      referenceResponse(
        op("SendSmsWithSenderName"),
        "httpGet",
        { Id: "99", CreditCost: "1.5", TotalCredits: "98.25" },
        {},
      ).body,
    ).toBe(wire.SMS_RECORD_DOCUMENT);
  });

  it("§5 DataSet (the page's sample has no Name column; the spec adds one)", () => {
    const base = op("GetReportViewsByDateInterval");
    if (base.result.kind !== "dataSet") throw new Error("not a DataSet");
    const withoutName = {
      ...base,
      result: { ...base.result, columns: base.result.columns.filter((c) => c.name !== "Name") },
    };
    const rows: WireRecord[] = [
      { SubscriberId: "7", Email: "e@x", ViewTime: "2024-05-06T07:08:09+00:00", DD3: "v1" },
      { SubscriberId: "8", Email: "f@x", ViewTime: "2024-05-06T07:08:09+00:00" },
    ];
    expect(referenceResponse(withoutName, "httpGet", { rows }, { ddField: "DD3" }).body.split("\n")).toEqual(
      wire.DATASET_DOCUMENT.split("\n"),
    );
  });
});
