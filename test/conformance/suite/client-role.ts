// Role 1: the generated client against a reference peer, a raw node:http server that checks each
// request canonically equals the reference request (method, path, query or form decoded, SOAPAction or
// action, envelope) and answers the reference response bytes or the reference refusal.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import * as generatedClient from "../../../generated/client.js";
import { canonicalXml } from "../canonical.js";
import { referenceFault, type ReferenceAnswer } from "../reference/errors.js";
import { referenceRequest, type ReferenceRequest } from "../reference/request.js";
import { referenceResponse } from "../reference/response.js";
import type { RefBinding, RefService } from "../reference/spec.js";
import { expectedError, sentValues, type ExpandedCase } from "./cases.js";
import { faultSideCode } from "./refusal.js";
import { CREDENTIALS } from "./server-role.js";
import { clientParams, typedResult } from "./typed.js";

function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

function soap12Action(contentType: string | undefined): string | undefined {
  return /;\s*action\s*=\s*"?([^";]*)"?/i.exec(contentType ?? "")?.[1];
}

function formPairs(text: string): [string, string][] {
  return [...new URLSearchParams(text)];
}

function sameXml(got: string, want: string): boolean {
  try {
    return canonicalXml(got) === canonicalXml(want);
  } catch {
    return false;
  }
}

/** How the request the client sent differs from the reference request; empty when it does not. */
function requestDifferences(binding: RefBinding, got: ReferenceRequest, want: ReferenceRequest): string[] {
  const problems: string[] = [];
  const same = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      problems.push(`${what}: sent ${JSON.stringify(a)}, want ${JSON.stringify(b)}`);
  };
  same("method", got.method, want.method);
  same("path", got.path, want.path);
  if (binding === "httpGet") same("query", formPairs(got.query), formPairs(want.query));
  else same("content type", mediaType(got.headers["content-type"]), mediaType(want.headers["content-type"]));
  if (binding === "httpPost") same("form", formPairs(got.body), formPairs(want.body));
  if (binding === "soap11") same("SOAPAction", got.headers.soapaction, want.headers.soapaction);
  if (binding === "soap12")
    same("action", soap12Action(got.headers["content-type"]), soap12Action(want.headers["content-type"]));
  if ((binding === "soap11" || binding === "soap12") && !sameXml(got.body, want.body)) {
    problems.push(`envelope differs:\n${got.body}\nwant:\n${want.body}`);
  }
  return problems;
}

interface Exchange {
  readonly binding: RefBinding;
  readonly request: ReferenceRequest;
  readonly answer: ReferenceAnswer;
  problems: string[] | undefined;
}

/** What the client role uses of a generated client.ts (generated/'s, or one generated from another spec). */
export interface GeneratedClient {
  readonly createClient: typeof generatedClient.createClient;
  readonly HttpBindingError: typeof generatedClient.HttpBindingError;
  readonly SoapFaultError: typeof generatedClient.SoapFaultError;
}

export interface ClientRole {
  run(expanded: ExpandedCase): Promise<void>;
  close(): Promise<void>;
}

export async function startClientRole(
  service: RefService,
  generated: GeneratedClient = generatedClient,
): Promise<ClientRole> {
  const { createClient, HttpBindingError, SoapFaultError } = generated;
  let current: Exchange | undefined;
  const endpointPath = `/${service.endpoint}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      const q = url.indexOf("?");
      const pathname = q < 0 ? url : url.slice(0, q);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const got: ReferenceRequest = {
        method: req.method ?? "",
        path: pathname.startsWith(endpointPath) ? pathname.slice(endpointPath.length) : pathname,
        query: q < 0 ? "" : url.slice(q + 1),
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const exchange = current;
      const problems = exchange
        ? requestDifferences(exchange.binding, got, exchange.request)
        : ["no case is running"];
      if (exchange) exchange.problems = problems;
      const answer =
        exchange && problems.length === 0
          ? exchange.answer
          : {
              status: 400,
              headers: { "content-type": "text/plain" },
              body: `request differs: ${problems.join("; ")}`,
            };
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function run({ binding, case: c }: ExpandedCase): Promise<void> {
    const op = service.operations.get(c.operation);
    if (!op) throw new Error(`unknown operation ${c.operation}`);
    const values = sentValues(c, CREDENTIALS);
    const want = c.error ? expectedError(c.error, binding) : undefined;
    const answer = want
      ? referenceFault(binding, want, op.namespace)
      : referenceResponse(op, binding, c.result ?? "", values);
    const exchange: Exchange = {
      binding,
      request: referenceRequest(op, binding, values),
      answer,
      problems: undefined,
    };
    current = exchange;
    const client = createClient({
      baseUrl,
      binding,
      username: values.strUsername,
      password: values.strPassword,
    });
    const call = (client as unknown as Record<string, (params: unknown) => Promise<unknown>>)[op.name];
    const outcome = await call(clientParams(op, values)).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    current = undefined;
    expect(exchange.problems ?? ["the client sent no request"]).toEqual([]);
    if (!want) {
      if ("error" in outcome) throw outcome.error;
      expect(outcome.value).toEqual(typedResult(op, c.result ?? "", values));
      return;
    }
    if (!("error" in outcome)) throw new Error(`the client returned ${String(outcome.value)} for a refusal`);
    if (binding === "soap11" || binding === "soap12") {
      expect(outcome.error).toBeInstanceOf(SoapFaultError);
      const fault = outcome.error as InstanceType<typeof SoapFaultError>;
      expect({
        faultCode: fault.faultCode,
        side: fault.side,
        errorCode: fault.errorCode,
        binding: fault.binding,
      }).toEqual({
        faultCode: faultSideCode(binding, want.side),
        side: want.side,
        errorCode: want.code,
        binding,
      });
    } else {
      expect(outcome.error).toBeInstanceOf(HttpBindingError);
      const failure = outcome.error as InstanceType<typeof HttpBindingError>;
      expect({
        status: failure.status,
        exceptionType: failure.exceptionType,
        errorCode: failure.errorCode,
      }).toEqual({
        status: want.status,
        exceptionType: want.exception,
        errorCode: want.code,
      });
    }
  }

  return {
    run,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
