// The client half of SOAP 1.1 and 1.2: writes the request envelope, reads the answer's result or fault.
// No server code: a client bundle that uses one SOAP version carries this module and its version's.

import { ResponseFormatError, SoapFaultError } from "../errors.js";
import type { ClientOperationModel, ClientServiceModel } from "../model.js";
import type { ParamTexts, ParamValues } from "../codec/params.js";
import type { XmlElement } from "../xml/tree.js";
import { escapeTextCompact } from "../xml/write.js";
import type { BindingOptions, ClientBinding, WireRequest, WireResponse } from "../protocol/binding.js";
import { readResult } from "../codec/result-read.js";
import { registeredWriters } from "../codec/typed-xml.js";
import { envelopeBody, envelopeOpen, type SoapVersion } from "../protocol/soap.js";
import { shapeHooks } from "../protocol/shape-hook.js";

export interface SoapClientVersion extends SoapVersion {
  requestHeaders(action: string): Record<string, string>;
  /** Fault code without prefix, reason text, and the detail element, from a received fault. */
  readFault(fault: XmlElement): { faultCode: string; reason: string; detail: XmlElement | undefined };
}

/** Strips the prefix of a QName-valued text such as `soap:Client`. */
export function localPart(qname: string): string {
  const t = qname.trim();
  return t.slice(t.indexOf(":") + 1);
}

export function createSoapClientBinding(
  version: SoapClientVersion,
  service: ClientServiceModel,
  options: BindingOptions,
): ClientBinding {
  const ns = service.namespace;
  const open = envelopeOpen(version);

  return {
    name: version.binding,

    encodeRequest(op: ClientOperationModel, texts: ParamTexts): WireRequest {
      // `<Op xmlns="ns">` around the parameters (Op its wire name), or as the operation's SOAP shape says
      // (shape-hook.ts).
      const [start, close, action] = shapeHooks.codec.request(op, ns, open);
      let body = start;
      op.params.forEach((p, i) => {
        const text = texts[i];
        // An empty string is `<p />`, as a .NET client writes it; an absent one is left out; a null nullable
        // value is `<p xsi:nil="true" />`; arrays and records are their items and fields (typed-xml.ts). A
        // text XML cannot carry (escapeTextCompact's RangeError) is refused naming the parameter.
        try {
          if (text === "") body += `<${p.name} />`;
          else if (typeof text === "string") body += `<${p.name}>${escapeTextCompact(text)}</${p.name}>`;
          else if (text === null) body += `<${p.name} xsi:nil="true" />`;
          else if (text !== undefined) body += registeredWriters(p.type).xml(p.name, p.type, text, false, 0);
        } catch (error) {
          throw new TypeError(`${op.name}: parameter ${p.name} ${(error as Error).message}`);
        }
      });
      body += close;
      return {
        method: "POST",
        path: "",
        query: "",
        headers: version.requestHeaders(action),
        body,
      };
    },

    decodeResponse(
      op: ClientOperationModel,
      response: WireResponse,
      request: ParamValues,
      onEnvelope?: (envelope: XmlElement) => void,
    ): unknown {
      // One-way: ASMX answers 202 with no body (a fault, if the request was refused, is read below).
      const status = response.status;
      const formatError = (message: string, cause?: unknown) =>
        new ResponseFormatError(`HTTP ${status}: ${message}`, version.binding, op.name, { cause });
      const oneWay = op.result.kind === "oneWay" && status >= 200 && status < 300;
      if (oneWay && response.body.trim() === "") return undefined;
      let root: XmlElement;
      try {
        root = options.readXml(response.body, options);
      } catch (error) {
        throw formatError(`the answer is not readable XML (${(error as Error).message})`, error);
      }
      const body = envelopeBody(root, version);
      if (!body) throw formatError(`the answer is not a ${version.label} envelope`);
      const first = body.children[0];
      if (first && first.local === "Fault" && first.ns === version.envelopeNs) {
        const fault = version.readFault(first);
        const error = fault.detail?.children.find((c) => c.local === "Error");
        throw new SoapFaultError(
          {
            ...fault,
            errorCode: error?.children.find((c) => c.local === "Code")?.text,
            parameter: error?.children.find((c) => c.local === "Parameter")?.text,
            status,
          },
          version.binding,
          op.name,
        );
      }
      if (oneWay) return undefined;
      if (status !== 200) throw formatError("an error status without a SOAP fault");
      try {
        // `<OpResponse>` holding `<OpResult>`, or as the operation's SOAP shape says (shape-hook.ts); with out
        // or ref parameters the response element itself holds the result's fields.
        const [holder, holderNs] = shapeHooks.codec.holder(op, ns, body);
        const result = readResult(op, holder, holderNs, request);
        // The answer's headers are read by the caller (header-codec.ts), once the result is known to be good.
        onEnvelope?.(root);
        return result;
      } catch (error) {
        throw formatError((error as Error).message, error);
      }
    },
  };
}
