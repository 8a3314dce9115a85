// The client's platform everywhere (Node, browsers, workers): the strict scanner (xml/scan.ts) and the
// runtime's charset decoding (codec/charset.ts), which reads ISO-8859-1 as .NET does. createClient's
// default; `createClientWith(soap11, { ..., platform: standard })`.

import type { ClientPlatform } from "../core.js";
import { decodeBody } from "../../codec/charset.js";
import { readXml } from "../../xml/scan.js";

export const standard: ClientPlatform = { readXml, decodeText: decodeBody };
