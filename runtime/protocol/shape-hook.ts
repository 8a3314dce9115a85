// Where the client finds the code that writes and reads an operation's SOAP messages around its parameters
// and result: ASMX's default shape here (a wrapper named by the wire name, wireName), replaced by soap-shape.ts's
// codec, which also writes and reads the shapes an operation's `soap` gives (model.ts SoapShapeModel: bare,
// renamed elements, another action or namespace). The generated model registers that one
// (registerSoapShapeCodec) only when some operation has a shape, so a client of a service without any
// carries none of it.

import { type ClientOperationModel, wireName } from "../model.js";
import { child, type XmlElement } from "../xml/tree.js";
import { ENVELOPE_CLOSE, soapActionOf } from "./soap.js";

export interface SoapShapeCodec {
  /**
   * A request's markup around its parameters, given the Envelope's start up to `<soap:Body>` (envelopeOpen):
   * up to the parameters (the Body's start tag and the wrapper's), from the wrapper's end to the Envelope's,
   * and its SOAP action.
   */
  request(
    op: ClientOperationModel,
    ns: string,
    open: string,
  ): readonly [start: string, close: string, action: string];
  /**
   * The answer's element holding the result (the response element itself with out parameters, the Body for
   * a bare one; undefined when absent) and the namespace of what it holds; throws Error when the Body holds
   * no response element.
   */
  holder(op: ClientOperationModel, ns: string, body: XmlElement): [XmlElement | undefined, string];
}

/** The codec in use: ASMX's default shape, unless the generated model registered soap-shape.ts's. */
export const shapeHooks: { codec: SoapShapeCodec } = {
  codec: {
    request(op, ns, open) {
      const wire = wireName(op);
      return [`${open}<${wire} xmlns="${ns}">`, `</${wire}>${ENVELOPE_CLOSE}`, soapActionOf(ns, wire)];
    },
    holder(op, ns, body) {
      const wire = wireName(op);
      const first = body.children[0];
      if (!first || first.local !== `${wire}Response` || first.ns !== ns)
        throw new Error(`the Body does not hold ${wire}Response in ${ns}`);
      return [op.result.kind === "response" ? first : child(first, ns, `${wire}Result`), ns];
    },
  },
};

/**
 * Replaces the default codec (one that writes the default shape as it does and every other too).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function registerSoapShapeCodec(codec: SoapShapeCodec): void {
  shapeHooks.codec = codec;
}
