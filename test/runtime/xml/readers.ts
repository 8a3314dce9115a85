// The two XML readers every reader test runs against (the runtime's scanner and the fast-xml-parser
// oracle), and how a test gets the refusal a reader throws.

import { readXml } from "../../../runtime/xml/scan.js";
import { XmlRefusal, type ReadOptions, type XmlElement } from "../../../runtime/xml/tree.js";
import { readXmlWithFastXmlParser } from "../../oracle/fxp.js";

export type Reader = (text: string, options?: ReadOptions) => XmlElement;

export const readers = [
  ["readXml", readXml],
  ["readXmlWithFastXmlParser", readXmlWithFastXmlParser],
] as const;

/** The XmlRefusal the reader throws for text; fails the test when the document is accepted. */
export function refusal(read: Reader, text: string, options?: ReadOptions): XmlRefusal {
  try {
    read(text, options);
  } catch (e) {
    if (e instanceof XmlRefusal) return e;
    throw e;
  }
  throw new Error("the document was accepted");
}
