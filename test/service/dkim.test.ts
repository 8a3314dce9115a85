// DKIM signing per sending domain (DKIM_KEYS), through the whole service into a real SMTP server on
// loopback, each arrival checked by a real verifier (mailauth's dkimVerify, with a resolver that answers
// the selector's TXT record the way DNS would): mail from a configured domain and from its subdomain
// passes, with List-Unsubscribe and List-Unsubscribe-Post signed; a body changed after signing fails;
// mail from a domain without a key arrives unsigned; the key can come from a file or a variable; a key
// file readable by everyone, a missing variable, a non-RSA or short key are refused at start with an error
// naming DKIM_KEYS and never the key. Keys are made by the test, in a temporary folder.

import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dkimVerify } from "mailauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig, ServiceConfigError } from "../../service/config.js";
import { queueMail } from "../../service/delivery/mail.js";
import { describeEngines } from "./support/engines.js";
import { startService, type TestService } from "./support/service.js";
import { smtpUrl, startSmtp, type TestSmtp } from "./support/smtp.js";

function rsaKey(bits = 2048) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  return {
    pem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    /** The TXT record at <selector>._domainkey.<domain>. */
    txt: `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`,
  };
}

const dir = mkdtempSync(join(tmpdir(), "eas-dkim-"));
const example = rsaKey();
const other = rsaKey();
const exampleFile = join(dir, "example.com.pem");
writeFileSync(exampleFile, example.pem, { mode: 0o600 });

/** DNS as the verifier sees it: the two selectors' records, nothing else. */
const records: Record<string, string> = {
  "s2026._domainkey.example.com": example.txt,
  "mail._domainkey.other.test": other.txt,
};
async function resolver(name: string, type: string): Promise<string[][]> {
  const record = records[name.toLowerCase()];
  if (type !== "TXT" || record === undefined)
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: "ENOTFOUND" });
  return [[record]];
}

async function verify(raw: string) {
  const result = await dkimVerify(Buffer.from(raw), { resolver });
  return result.results;
}

describeEngines("DKIM signing", (engine) => {
  let smtp: TestSmtp;
  let svc: TestService;
  let accountId: number;

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(engine, "dkim", {
      SMTP_URL: smtpUrl(smtp.port),
      SMTP_ALLOW_PLAINTEXT_AUTH: "true",
      DKIM_KEYS: `example.com:s2026:${exampleFile}, other.test:mail:env:DKIM_OTHER`,
      DKIM_OTHER: other.pem.replace(/\n/g, "\\n"),
    });
    accountId = await svc.createAccount("dk", "dk-secret-1");
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  /** Queues one message from `from` and delivers it; returns what the SMTP server received. */
  async function deliver(from: string, headers: Record<string, string> = {}): Promise<string> {
    const before = smtp.arrivals.length;
    await svc.app.store.write((trx) =>
      queueMail(
        trx,
        {
          accountId,
          kind: "newsletter",
          from: { name: "News", address: from },
          to: { name: "Ann", address: "ann@example.net" },
          subject: "Hello from DKIM",
          text: "Hello Ann,\nthe news.\n",
          html: "<p>Hello Ann,</p><p>the news.</p>",
          headers,
        },
        Date.now(),
        "example.com",
      ),
    );
    await svc.app.outbox!.flush();
    expect(smtp.arrivals.length).toBe(before + 1);
    return smtp.arrivals[before]!.raw;
  }

  it("signs mail from a configured domain (key file) so a real verifier passes it", async () => {
    const raw = await deliver("news@example.com", {
      "List-Unsubscribe": "<http://127.0.0.1:1/u/abc>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    expect(raw.startsWith("DKIM-Signature:")).toBe(true);
    const [result, ...more] = await verify(raw);
    expect(more).toEqual([]);
    expect(result!.status.result).toBe("pass");
    expect(result!.signingDomain).toBe("example.com");
    expect(result!.selector).toBe("s2026");
    const head = raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
    const tags = /^DKIM-Signature:(.*)$/m.exec(head)![1]!;
    const signed = /\bh=([^;]*)/.exec(tags)![1]!.replace(/\s+/g, "").toLowerCase().split(":");
    for (const field of ["from", "to", "subject", "list-unsubscribe", "list-unsubscribe-post"])
      expect(signed).toContain(field);
  });

  it("fails verification once the body is changed after signing", async () => {
    const raw = await deliver("news@example.com");
    const end = raw.indexOf("\r\n\r\n") + 4;
    const tampered = `${raw.slice(0, end)}X${raw.slice(end)}`;
    const [result] = await verify(tampered);
    expect(result!.status.result).toBe("neutral");
    expect(result!.status.comment).toMatch(/body hash did not verify/);
  });

  it("signs a subdomain's mail with the parent domain's key, and a key from a variable", async () => {
    const [sub] = await verify(await deliver("news@lists.example.com"));
    expect(sub!.status.result).toBe("pass");
    expect(sub!.signingDomain).toBe("example.com");
    const [fromEnv] = await verify(await deliver("hello@Other.Test"));
    expect(fromEnv!.status.result).toBe("pass");
    expect(fromEnv!.signingDomain).toBe("other.test");
    expect(fromEnv!.selector).toBe("mail");
  });

  it("sends mail from a domain without a key unsigned", async () => {
    const raw = await deliver("news@unsigned.example");
    expect(raw).not.toMatch(/^DKIM-Signature:/im);
    const [result] = await verify(raw);
    expect(result!.status.result).toBe("none");
  });
});

describe("DKIM_KEYS at start", () => {
  const base = { DATABASE_URL: "sqlite::memory:" };
  function refusal(env: Record<string, string>): string {
    try {
      readConfig({ ...base, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ServiceConfigError);
      return (error as Error).message;
    }
    throw new Error("accepted");
  }
  const body = (pem: string) => pem.split("\n")[1]!;

  it("refuses a key file every user can read, naming the entry and never the key", () => {
    const open = join(dir, "open.pem");
    writeFileSync(open, example.pem);
    chmodSync(open, 0o644);
    const message = refusal({ DKIM_KEYS: `example.com:s1:${open}` });
    expect(message).toMatch(/^DKIM_KEYS entry 1 \(example\.com\): .*readable by every user/);
    expect(message).not.toContain(body(example.pem));
  });

  it("refuses a missing file, an unset variable, a bad domain or selector, and a second key of a domain", () => {
    expect(refusal({ DKIM_KEYS: `example.com:s1:${join(dir, "none.pem")}` })).toMatch(/ENOENT/);
    expect(refusal({ DKIM_KEYS: "example.com:s1:env:NOPE" })).toMatch(/NOPE is unset or empty/);
    expect(refusal({ DKIM_KEYS: `localhost:s1:${exampleFile}` })).toMatch(/not a domain name/);
    expect(refusal({ DKIM_KEYS: `example.com:s_1:${exampleFile}` })).toMatch(/selector/);
    expect(refusal({ DKIM_KEYS: "example.com" })).toMatch(/domain:selector:/);
    expect(refusal({ DKIM_KEYS: `example.com:a:${exampleFile},EXAMPLE.com:b:${exampleFile}` })).toMatch(
      /entry 2: example\.com has a key already/,
    );
  });

  it("refuses what is not an RSA private key of 1024 bits or more, never echoing it", () => {
    const ed = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const short = rsaKey(512).pem;
    for (const pem of [ed, short, "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"]) {
      const message = refusal({ DKIM_KEYS: "example.com:s1:env:K", K: pem });
      expect(message).toMatch(/DKIM_KEYS entry 1 \(example\.com\): the key (must be an RSA|is not a PEM)/);
      expect(message).not.toContain(body(pem));
    }
  });

  it("accepts none (unsigned mail) and a good key", () => {
    expect(readConfig(base).dkimKeys).toEqual([]);
    const keys = readConfig({ ...base, DKIM_KEYS: `Example.com.:s2026:${exampleFile}` }).dkimKeys;
    expect(keys.map((k) => [k.domain, k.selector])).toEqual([["example.com", "s2026"]]);
  });
});
