// DKIM signing (RFC 6376) per sending domain: DKIM_KEYS names, for each domain, a selector and where its
// private key is (a file, or an environment variable), never the key itself. Each outgoing message is
// signed at delivery, by the key of its From address's domain (or of the nearest parent domain that has
// one), with nodemailer's signer (rsa-sha256, relaxed/relaxed); the stored message stays unsigned, so a
// rotated key signs every message sent after the restart. Mail from a domain without a key goes out
// unsigned. docs/mail.md ("DKIM") has the DNS records and the rotation steps.

import DKIM from "nodemailer/lib/dkim";
import type { DkimKey } from "../config.js";
import { fromAddress, type MailTransport, type OutgoingMail } from "./mail-transport.js";

/** Header fields signed: nodemailer's list (RFC 6376 5.4.1) and RFC 8058's List-Unsubscribe-Post. */
const SIGNED_FIELDS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:" +
  "Content-Transfer-Encoding:Content-ID:Content-Description:In-Reply-To:References:" +
  "List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive";

/** The domain of the message's From address (lower case), or undefined when it has none. */
function fromDomain(message: string): string | undefined {
  const address = fromAddress(message);
  const at = address === undefined ? -1 : address.lastIndexOf("@");
  return at < 0 ? undefined : address!.slice(at + 1).toLowerCase();
}

/** Signs messages with the key of their From domain; undefined when no key is configured. */
export type DkimSigner = (message: string) => Promise<string>;

export function dkimSigner(keys: readonly DkimKey[]): DkimSigner | undefined {
  if (keys.length === 0) return undefined;
  const signers = new Map(
    keys.map((key) => [
      key.domain,
      new DKIM({
        domainName: key.domain,
        keySelector: key.selector,
        privateKey: key.privateKey,
        headerFieldNames: SIGNED_FIELDS,
      }),
    ]),
  );
  /** The signer of the domain or of its nearest parent domain. */
  const signerOf = (domain: string) => {
    for (let d = domain; d.includes("."); d = d.slice(d.indexOf(".") + 1)) {
      const signer = signers.get(d);
      if (signer !== undefined) return signer;
    }
    return undefined;
  };
  return async (message) => {
    const domain = fromDomain(message);
    const signer = domain === undefined ? undefined : signerOf(domain);
    if (signer === undefined) return message;
    const chunks: Buffer[] = [];
    for await (const chunk of signer.sign(message)) chunks.push(chunk as Buffer);
    const signed = Buffer.concat(chunks).toString("utf8");
    // nodemailer leaves a message unsigned when the key cannot sign (checked at start, so never expected)
    if (!signed.startsWith("DKIM-Signature:")) throw new Error(`DKIM signing for ${domain} failed`);
    return signed;
  };
}

/** The transport with every message signed first (a message whose signing fails is a temporary failure). */
export function signingTransport(inner: MailTransport, sign: DkimSigner | undefined): MailTransport {
  if (sign === undefined) return inner;
  const signed = async (mail: OutgoingMail): Promise<OutgoingMail> => ({
    ...mail,
    message: await sign(mail.message),
  });
  const wrapped: MailTransport = {
    description: inner.description,
    sendTimeoutMs: inner.sendTimeoutMs,
    ...(inner.concurrency === undefined ? {} : { concurrency: inner.concurrency }),
    send: async (mail) => inner.send(await signed(mail)),
    close: () => inner.close(),
  };
  if (inner.maintain !== undefined) wrapped.maintain = inner.maintain.bind(inner);
  if (inner.sendBatch !== undefined) {
    const sendBatch = inner.sendBatch.bind(inner);
    wrapped.sendBatch = async (mails) => {
      const results: (Error | undefined)[] = new Array(mails.length).fill(undefined);
      const ready: OutgoingMail[] = [];
      const slots: number[] = [];
      for (const [k, mail] of mails.entries()) {
        try {
          ready.push(await signed(mail));
          slots.push(k);
        } catch (error) {
          results[k] = error instanceof Error ? error : new Error(String(error));
        }
      }
      const sent = await sendBatch(ready);
      for (const [j, k] of slots.entries()) results[k] = sent[j];
      return results;
    };
  }
  return wrapped;
}
