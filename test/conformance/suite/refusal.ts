// Checks a refusal answer against the expected one by what is stable: status, content type, fault side
// (Client/Sender vs Server/Receiver) and error code for SOAP; exception type and X-Error-Code for the
// text form. Never message wording. Returns the problems found; none means it conforms.
//
// `strict` (our own server, and every endpoint that sends an error code) holds the answer to our forms.
// Otherwise (a legacy ASMX host) it is held to what ASMX sends: the 500 text is the exception type and
// message only where custom errors are off; a deployed host (customErrors On) writes the message alone
// (docs/wire.md §4), so the type is checked only when the line names one. A refusal at the HTTP level
// carries no fault envelope, but the host may send its own HTML error page.

import { childNamed, readTree, type XNode } from "../canonical.js";
import { contentTypeOf, type RefError, type ReferenceAnswer } from "../reference/errors.js";
import { envelopeNs } from "../reference/request.js";
import type { RefBinding } from "../reference/spec.js";

export interface ReadFault {
  /** Fault code local part: Client, Server, Sender, Receiver. */
  readonly code: string;
  readonly reason: string;
  readonly errorCode: string | undefined;
}

function localPart(qname: string): string {
  return qname.trim().slice(qname.trim().indexOf(":") + 1);
}

/** The fault of a SOAP answer; throws with a reason when the answer holds no well-formed fault. */
function readFault(binding: "soap11" | "soap12", body: string): ReadFault {
  const env = envelopeNs(binding);
  const root = readTree(body);
  if (root.ns !== env || root.local !== "Envelope")
    throw new Error(`the answer is not a ${binding} envelope`);
  const fault = childNamed(childNamed(root, env, "Body"), env, "Fault");
  if (!fault) throw new Error("the envelope's Body holds no Fault");
  let code: XNode | undefined;
  let reason: XNode | undefined;
  let detail: XNode | undefined;
  if (binding === "soap11") {
    [code, reason, detail] = [
      childNamed(fault, "", "faultcode"),
      childNamed(fault, "", "faultstring"),
      childNamed(fault, "", "detail"),
    ];
  } else {
    code = childNamed(childNamed(fault, env, "Code"), env, "Value");
    reason = childNamed(childNamed(fault, env, "Reason"), env, "Text");
    detail = childNamed(fault, env, "Detail");
  }
  if (!code || !reason) throw new Error(`the Fault lacks its ${code ? "reason" : "code"}`);
  const error = detail?.children.find((c) => c.local === "Error");
  return {
    code: localPart(code.text),
    reason: reason.text,
    errorCode: error?.children.find((c) => c.local === "Code")?.text,
  };
}

/** `System.ArgumentException: message` → the exception type, or undefined when the text is not that shape. */
function exceptionTypeOf(body: string): string | undefined {
  return /^([A-Za-z_][\w.]*): /.exec(body)?.[1];
}

/**
 * The exception type a legacy host's 500 text names, when it names one: a namespace-qualified .NET type
 * (`System.InvalidOperationException: …`). A message alone (`Missing parameter: x.`, customErrors On)
 * names none.
 */
function namedExceptionType(body: string): string | undefined {
  return /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+): /.exec(body)?.[1];
}

/** Whether the text is a SOAP envelope (either version), which a refusal at the HTTP level never is. */
function isSoapEnvelope(body: string): boolean {
  try {
    const root = readTree(body);
    return (
      root.local === "Envelope" && (root.ns === envelopeNs("soap11") || root.ns === envelopeNs("soap12"))
    );
  } catch {
    return false;
  }
}

function normalized(contentType: string | undefined): string {
  return (contentType ?? "").toLowerCase().replace(/\s+/g, "");
}

export function faultSideCode(binding: "soap11" | "soap12", side: "client" | "server"): string {
  if (binding === "soap11") return side === "client" ? "Client" : "Server";
  return side === "client" ? "Sender" : "Receiver";
}

/**
 * A refusal at the HTTP level (docs/wire.md §1a: 400, 405, 415): the status, and no fault envelope. ASMX
 * sends an empty body there (its content type is not recorded, so it is not checked); ours, held to it
 * when `strict`, sends text/plain with X-Error-Code and one line of text (none for 415).
 */
function checkBare(answer: ReferenceAnswer, want: RefError, strict: boolean): string[] {
  const problems: string[] = [];
  if (answer.status !== want.status) problems.push(`status ${answer.status}, want ${want.status}`);
  if (strict ? answer.body.trimStart().startsWith("<") : isSoapEnvelope(answer.body)) {
    problems.push(`a refusal at the HTTP level carries ${strict ? "XML" : "a SOAP envelope"}, want none`);
  }
  const code = answer.headers["x-error-code"];
  if (code === undefined ? strict : code !== want.code)
    problems.push(`error code ${code ?? "(none)"}, want ${want.code}`);
  if (strict) {
    const contentType = contentTypeOf("httpGet", "text");
    if (normalized(answer.headers["content-type"]) !== normalized(contentType)) {
      problems.push(`content type ${answer.headers["content-type"] ?? "(none)"}, want ${contentType}`);
    }
    if (want.status === 415 ? answer.body !== "" : !/^[\w.]+: [^\r\n]+$/.test(answer.body)) {
      problems.push(
        `body ${JSON.stringify(answer.body.slice(0, 80))}, want ${want.status === 415 ? "none" : "one line"}`,
      );
    }
  }
  return problems;
}

export function checkRefusal(
  binding: RefBinding,
  answer: ReferenceAnswer,
  want: RefError,
  requireCode: boolean,
): string[] {
  if (want.answer === "bare") return checkBare(answer, want, requireCode);
  const problems: string[] = [];
  if (answer.status !== want.status) problems.push(`status ${answer.status}, want ${want.status}`);
  const form = want.answer === "fault" && (binding === "soap11" || binding === "soap12") ? "fault" : "text";
  const contentType = contentTypeOf(binding, form);
  if (normalized(answer.headers["content-type"]) !== normalized(contentType)) {
    problems.push(`content type ${answer.headers["content-type"] ?? "(none)"}, want ${contentType}`);
  }
  let errorCode: string | undefined;
  if (form === "fault") {
    try {
      const fault = readFault(binding as "soap11" | "soap12", answer.body);
      const side = faultSideCode(binding as "soap11" | "soap12", want.side);
      if (fault.code !== side) problems.push(`fault code ${fault.code}, want ${side}`);
      errorCode = fault.errorCode;
    } catch (error) {
      problems.push(`no well-formed fault: ${(error as Error).message}`);
    }
  } else {
    errorCode = answer.headers["x-error-code"];
    const lenient = !requireCode && errorCode === undefined;
    const type = lenient ? namedExceptionType(answer.body) : exceptionTypeOf(answer.body);
    if (type === undefined ? !lenient : type !== want.exception) {
      problems.push(`exception type ${type ?? "(none)"}, want ${want.exception}`);
    }
  }
  if (errorCode === undefined ? requireCode : errorCode !== want.code) {
    problems.push(`error code ${errorCode ?? "(none)"}, want ${want.code}`);
  }
  return problems;
}

/**
 * The error code an answer carries, if any: a SOAP fault's `<detail><Error><Code>` or the HTTP bindings'
 * X-Error-Code. A legacy ASMX host sends none.
 */
export function answerErrorCode(binding: RefBinding, answer: ReferenceAnswer): string | undefined {
  if (binding === "httpGet" || binding === "httpPost") return answer.headers["x-error-code"];
  try {
    return readFault(binding, answer.body).errorCode ?? answer.headers["x-error-code"];
  } catch {
    return answer.headers["x-error-code"];
  }
}
