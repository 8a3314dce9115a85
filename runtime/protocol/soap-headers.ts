// SOAP headers as ASMX reads and writes them (docs/asmx-evidence/soap-headers.md): each declared header is
// one element of the Header, named as its record, in the service namespace, holding the record's fields.
// Both halves use this module: the client writes the headers it sends and reads those answered, the server
// binds the ones an operation takes and writes the ones it answers. HTTP GET and POST carry none.

import {
  type BindingName,
  type ClientOperationModel,
  headerIsAnswered,
  headerIsSent,
  type HeaderModel,
} from "../model.js";
import type { WireRequest } from "./binding.js";
import type { HeaderCodec } from "./header-codec.js";
import type { XmlElement } from "../xml/tree.js";
import { readWire, recordWire, registeredWriters, type FormatFailure } from "../codec/typed-xml.js";

/** Header values by header (record) name. */
export type HeaderValues = Record<string, unknown>;

/** The Header children of an envelope, in document order, over every Header element it holds. */
export function headerElements(envelope: XmlElement, envelopeNs: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const part of envelope.children) {
    if (part.local === "Header" && part.ns === envelopeNs) out.push(...part.children);
  }
  return out;
}

/**
 * Binds `headers` (those a side reads: the server the ones sent, the client the ones answered) to the
 * elements of an envelope's Header, as ASMX does: the first element of a header's name in the service
 * namespace is bound; another of the same name is not (nor one in another namespace). Each bound element
 * is read as its record (a value that does not read throws TypedValueError naming the header). `bound`
 * collects the elements bound, for the mustUnderstand check. Linear in headers × elements; an operation
 * declares a handful of headers.
 */
export function bindHeaders(
  headers: readonly HeaderModel[],
  elements: readonly XmlElement[],
  ns: string,
  bound?: Set<XmlElement>,
): HeaderValues {
  const values: HeaderValues = Object.create(null) as HeaderValues;
  for (const header of headers) {
    const name = header.record.name;
    for (const el of elements) {
      if (el.local !== name || el.ns !== ns) continue;
      bound?.add(el);
      const type = { kind: "record", record: header.record } as const;
      values[name] = readWire(type, recordWire(header.record, el, ns), `SOAP header ${name}`);
      break;
    }
  }
  return values;
}

/** A value given for a header that the side writes, or undefined when none was given (null counts as none). */
function given(values: Readonly<Record<string, unknown>> | undefined, name: string): unknown {
  if (values === undefined || !Object.hasOwn(values, name)) return undefined;
  return values[name] ?? undefined;
}

/**
 * The header elements for `headers` (those a side writes) given values by name: `<Name xmlns="ns">`
 * and the record's fields, in the operation's header order, as ASMX writes them (no mustUnderstand); a
 * header without a value is left out. "" when none is written. A value that is not its record throws
 * `fail`'s error naming the header.
 */
export function headersXml(
  headers: readonly HeaderModel[],
  values: Readonly<Record<string, unknown>> | undefined,
  ns: string,
  fail: FormatFailure,
): string {
  let xml = "";
  for (const header of headers) {
    const value = given(values, header.record.name);
    if (value === undefined) continue;
    const type = { kind: "record", record: header.record } as const;
    const writers = registeredWriters(type);
    const wire = writers.format(type, value, `SOAP header ${header.record.name}`, fail);
    xml += writers.xml(header.record.name, type, wire, false, 0, ` xmlns="${ns}"`);
  }
  return xml;
}

/**
 * The codec the generated model registers for the client (header-codec.ts).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export const soapHeaderCodec: HeaderCodec = (request, op, options, config, binding, ns) => {
  const received = options.onSoapHeaders;
  const onEnvelope =
    received &&
    ((envelope: XmlElement) =>
      received({
        ...bindHeaders(
          (op.headers ?? []).filter(headerIsAnswered),
          headerElements(envelope, envelope.ns),
          ns,
        ),
      }));
  return [
    attachHeaders(request, op, options.soapHeaders ?? config.soapHeaders, config, binding, ns),
    onEnvelope,
  ];
};

/** The request with the headers a call of `op` sends (HeaderCodec). */
function attachHeaders(
  request: WireRequest,
  op: ClientOperationModel,
  supplied: object | undefined,
  config: object,
  binding: BindingName,
  ns: string,
): WireRequest {
  const headers = op.headers ?? [];
  const values: Record<string, unknown> = { ...(supplied as Record<string, unknown> | undefined) };
  const credential = headers.find((h) => h.credential);
  if (credential !== undefined) {
    // The credentials header: its fields from the config, as credential parameters are.
    const fields: Record<string, unknown> = {};
    for (const field of credential.record.fields)
      if (Object.hasOwn(config, field.name))
        fields[field.name] = (config as Record<string, unknown>)[field.name];
    values[credential.record.name] = fields;
  }
  const http = binding === "httpGet" || binding === "httpPost";
  for (const header of headers) {
    if (!header.required || !headerIsSent(header)) continue;
    const name = header.record.name;
    if (http)
      throw new TypeError(
        `${op.name} requires the SOAP header ${name}, which ${binding} cannot carry (as in ASMX): call it over SOAP.`,
      );
    if (given(values, name) === undefined)
      throw new TypeError(
        `${op.name}: SOAP header ${name} is required${header.credential ? " (the credentials: give them in the client's config)" : ""}.`,
      );
  }
  if (http) return request;
  const xml = headersXml(
    headers.filter(headerIsSent),
    values,
    ns,
    (message) => new TypeError(`${op.name}: ${message}.`),
  );
  if (xml === "") return request;
  // The envelope is the binding's own (envelopeOpen): its first <soap:Body> is the Body.
  const at = request.body.indexOf("<soap:Body>");
  return {
    ...request,
    body: `${request.body.slice(0, at)}<soap:Header>${xml}</soap:Header>${request.body.slice(at)}`,
  };
}
