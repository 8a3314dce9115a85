// Role 2: the generated server over real HTTP on 127.0.0.1 gets the exact bytes a .NET client sends
// (the reference request, tampered for protocol cases) and must answer what an ASMX host answers:
// compared as canonical XML plus status and content type, or by fault side and error code.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import * as generatedServer from "../../../generated/server.js";
import type { CallContext, ExternalAPIService } from "../../../generated/server.js";
import { canonicalXml } from "../canonical.js";
import { referenceResponse } from "../reference/response.js";
import type { RefService } from "../reference/spec.js";
import { expectedError, sentValues, type ExpandedCase } from "./cases.js";
import { sendRequest } from "./http.js";
import { checkRefusal } from "./refusal.js";
import { caseRequest } from "./request.js";
import { handlerParams, typedResult } from "./typed.js";

/** The body limit the server under test runs with; the oversized-body cases pad past it. */
const SERVER_MAX_BODY_BYTES = 1024 * 1024;
export const CREDENTIALS = { username: "u", password: "p" } as const;

interface Received {
  readonly operation: string;
  readonly params: unknown;
  readonly context: CallContext;
}

interface Current {
  readonly respond: () => unknown;
  readonly received: Received[];
}

/** What the server role uses of a generated server.ts (generated/'s, or one generated from another spec). */
export interface GeneratedServer {
  readonly createHandler: typeof generatedServer.createHandler;
  readonly ServiceError: typeof generatedServer.ServiceError;
}

export interface ServerRole {
  run(expanded: ExpandedCase): Promise<void>;
  close(): Promise<void>;
}

export async function startServerRole(
  service: RefService,
  generated: GeneratedServer = generatedServer,
): Promise<ServerRole> {
  const { createHandler, ServiceError } = generated;
  let current: Current | undefined;
  const implementation: Record<string, (params: unknown, context: CallContext) => unknown> = {};
  for (const name of service.operations.keys()) {
    implementation[name] = (params, context) => {
      if (!current) throw new Error("a call arrived outside a case");
      current.received.push({ operation: name, params, context });
      return current.respond();
    };
  }
  const handler = createHandler(implementation as unknown as ExternalAPIService, {
    maxBodyBytes: SERVER_MAX_BODY_BYTES,
    log: () => undefined,
  });
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpointUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${service.endpoint}`;

  async function run({ binding, case: c }: ExpandedCase): Promise<void> {
    const op = service.operations.get(c.operation);
    if (!op) throw new Error(`unknown operation ${c.operation}`);
    const values = sentValues(c, CREDENTIALS);
    const received: Received[] = [];
    const error = c.error;
    const respond = (): unknown => {
      if (c.result !== undefined) return typedResult(op, c.result, values);
      if (error?.code === "InternalError") throw new Error("a bug in the handler, not for the wire");
      throw new ServiceError(error?.code ?? "", "The operation failed.", { side: error?.side ?? "server" });
    };
    current = { respond, received };
    const answer = await sendRequest(endpointUrl, caseRequest(op, binding, values, c.omit, c.tamper)).finally(
      () => {
        current = undefined;
      },
    );
    if (c.result !== undefined) {
      const want = referenceResponse(op, binding, c.result, values);
      expect({ status: answer.status, contentType: answer.headers["content-type"] }, answer.body).toEqual({
        status: want.status,
        contentType: want.headers["content-type"],
      });
      expect(canonicalXml(answer.body)).toBe(canonicalXml(want.body));
    } else if (error) {
      expect(checkRefusal(binding, answer, expectedError(error, binding), true), answer.body).toEqual([]);
    }
    // A server-side error of a tampered request comes from the runtime (an empty SOAP 1.2 body), not the handler.
    const calledHandler = c.result !== undefined || (error?.side === "server" && !c.tamper);
    expect(received.map((r) => r.operation)).toEqual(calledHandler ? [c.operation] : []);
    if (calledHandler) {
      expect(received[0].params).toEqual(handlerParams(op, { ...values, ...c.received }, c.omit));
      const {
        credentials: { username, password },
        binding: seen,
      } = received[0].context;
      expect({ username, password, binding: seen }).toEqual({
        username: values.strUsername,
        password: values.strPassword,
        binding,
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
