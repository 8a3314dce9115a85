// Renders a binding's WireRequest/WireResponse as a readable HTTP-message-like text for golden files:
// a request or status line, the headers sorted by name, a blank line, then the body byte for byte.

import { STATUS_CODES } from "node:http";
import type { WireRequest, WireResponse } from "../../generated/runtime/protocol/binding.js";
import { service } from "../../generated/model.js";

export const ENDPOINT_PATH = `/${service.endpoint}`;

function headerLines(headers: Readonly<Record<string, string>>): string {
  return Object.keys(headers)
    .sort()
    .map((name) => `${name}: ${headers[name]}\n`)
    .join("");
}

export function requestMessage(request: WireRequest): string {
  const target = ENDPOINT_PATH + request.path + (request.query ? `?${request.query}` : "");
  return `${request.method} ${target}\n${headerLines(request.headers)}\n${request.body}`;
}

export function responseMessage(response: WireResponse): string {
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}\n${headerLines(response.headers)}\n${response.body}`;
}
