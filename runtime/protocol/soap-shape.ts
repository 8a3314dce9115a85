// The names an operation's SOAP messages use, as ASMX derives them unless the operation's `soap` shape
// (model.ts SoapShapeModel, .NET's [SoapDocumentMethod]) says otherwise: the server's, and the client's
// codec (soapShapeCodec), which the generated model registers only when some operation has a shape
// (shape-hook.ts). A shape's namespace holds no character markup would escape (the spec's pattern).

import {
  isBare,
  requestElementOf,
  responseElementOf,
  resultElementOf,
  type ClientOperationModel,
  wireName,
} from "../model.js";
import { child } from "../xml/tree.js";
import type { SoapShapeCodec } from "./shape-hook.js";
import { ENVELOPE_CLOSE, soapActionOf } from "./soap.js";

/** The operation's SOAP action: the shape's, else namespace + wire name (soapActionOf, wireName). */
export const soapActionFor = (serviceNs: string, op: ClientOperationModel): string =>
  op.soap?.action ?? soapActionOf(serviceNs, wireName(op));

/** The namespace of the operation's request and response elements and what they hold. */
export const messageNamespace = (serviceNs: string, op: ClientOperationModel): string =>
  op.soap?.namespace ?? serviceNs;

/**
 * `<soap:Body>` of a bare message, declaring the message namespace as the default one, so that the
 * parameters' (or the result's) elements written without a namespace of their own are in it. ASMX declares
 * it on each of them instead: the same XML.
 */
export const bareBodyOpen = (ns: string): string => `<soap:Body xmlns="${ns}">`;

/**
 * The client's writing and reading of every operation's messages, shaped or not (the generated model
 * registers it when some operation has a shape).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export const soapShapeCodec: SoapShapeCodec = {
  request(op, ns, open) {
    const opNs = messageNamespace(ns, op);
    const action = soapActionFor(ns, op);
    if (isBare(op))
      return [open.slice(0, -"<soap:Body>".length) + bareBodyOpen(opNs), ENVELOPE_CLOSE, action];
    const element = requestElementOf(op);
    return [`${open}<${element} xmlns="${opNs}">`, `</${element}>${ENVELOPE_CLOSE}`, action];
  },
  holder(op, ns, body) {
    const opNs = messageNamespace(ns, op);
    // Bare: the Body holds the result's element (none for void or null) and the out parameters' itself.
    let wrapper = body;
    if (!isBare(op)) {
      const element = responseElementOf(op);
      const first = body.children[0];
      if (!first || first.local !== element || first.ns !== opNs)
        throw new Error(`the Body does not hold ${element} in ${opNs}`);
      wrapper = first;
    }
    return [op.result.kind === "response" ? wrapper : child(wrapper, opNs, resultElementOf(op)), opNs];
  },
};
