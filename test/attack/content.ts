// `npm run fuzz -- --only content`: what goes into mail, against the real service (its heap capped at
// 256 MiB). One account ("writer") and an honest one whose calls (GetTriggerIdForAccount) are the probe.
//
// 1. Huge fields: 24 calls, 4 at a time, each carrying one 10 MiB value in a stored field (a subscriber's
//    name, DD value, list name, newsletter subject, module code, sender name, a transaction's name and data
//    field, a CSV Name cell, an SMS text). Each must be refused naming the parameter (or the CSV line),
//    nothing stored over its limit, the process's peak RSS bounded and the probe answered within 1 s.
// 2. Hostile but accepted data: 12 subscribers whose name and 25 DD fields are at their longest and full
//    of what breaks mail (CR/LF, `=?` look-alikes, emoji, combining marks, javascript:/data:/vbscript: URLs
//    in every spelling browsers accept), a newsletter tracked `all` whose template puts those fields in
//    links and whose modules fill the 262,144-character budget with merge tags, a trigger on the list, and
//    12 transactional mails with the same data. Every .eml in the outbox folder is then read: no line over
//    998 octets, From/To/Subject lines at most 78, no URL attribute a browser reads as anything but http,
//    https or mailto, and no message over the size the limits bound it to.

import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { operations } from "../../generated/model.js";
import { runAdmin } from "../../service/admin/cli.js";
import {
  MAX_FIELD_VALUE,
  MAX_MODULE_CODE,
  MAX_NAME,
  MAX_NEWSLETTER_MODULES,
} from "../../service/common/limits.js";
import { checkMail } from "../fixtures/mail-checks.js";
import {
  ENDPOINT_PATH,
  type HttpOutcome,
  type RealService,
  callHttpPost,
  describeProbes,
  inParallel,
  probeDuring,
  request,
  startRealService,
} from "./real-service.js";
import { mb, type Row } from "./report.js";

const WRITER = { strUsername: "writer", strPassword: "writer-password-1" };
const HONEST = { strUsername: "honest", strPassword: "honest-password-1" };
const HUGE = 10 * 1024 * 1024;
/** The service's heap cap in this section, and the peak RSS the huge-field row allows. */
const HEAP_MB = 256;
const PEAK_RSS_MB = 512;
/**
 * The largest message the limits allow for this section's template: the modules' 262,144 characters merged
 * at their longest, at most 6 octets each escaped in HTML (`&quot;`) and 4 in text (an emoji), plus the
 * template's own 50 merge tags of 500 characters (6 and 4 octets), all base64 (4/3), plus 64 KiB for the
 * rest (template text, headers, tracked links).
 */
const SIZE_BOUND = Math.ceil(((MAX_NEWSLETTER_MODULES * 10 + 50 * MAX_FIELD_VALUE * 10) * 4) / 3) + 65_536;

async function admin(databaseUrl: string, argv: string[]): Promise<string> {
  let out = "";
  let err = "";
  const sink = (write: (t: string) => void) =>
    new Writable({ write: (chunk: Buffer, _e, done) => (write(chunk.toString("utf8")), done()) });
  const code = await runAdmin([...argv, "--json"], {
    stdin: process.stdin,
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    env: { DATABASE_URL: databaseUrl },
  });
  if (code !== 0) throw new Error(`admin ${argv.slice(0, 2).join(" ")}: ${err}`);
  return out;
}

/** Every parameter of the operation (HTTP POST wants each one, empty for "not given"), with `given` over "". */
function allParams(operation: string, given: Record<string, string>): Record<string, string> {
  const params = (
    operations as unknown as Record<string, { params: readonly (string | { name: string })[] }>
  )[operation]!.params;
  return { ...Object.fromEntries(params.map((p) => [typeof p === "string" ? p : p.name, ""])), ...given };
}

const idOf = (json: string) => String((JSON.parse(json) as { id: number }).id);
const number = (xml: string) => /<(?:long|int)[^>]*>(\d+)</.exec(xml)?.[1] ?? "";

async function call(
  service: RealService,
  operation: string,
  params: Record<string, string>,
  user = WRITER,
): Promise<string> {
  const answer = await callHttpPost(service.port, operation, allParams(operation, { ...user, ...params }), {
    maxBodyBytes: 1024 * 1024,
    timeoutMs: 30_000,
  });
  if (answer.kind !== "answer" || answer.status !== 200)
    throw new Error(
      `${operation}: ${answer.kind === "answer" ? `${answer.status} ${answer.body.slice(0, 300)}` : answer.detail}`,
    );
  return answer.body;
}

/**
 * The probe: an honest account's call through the API (credentials checked, a read of its triggers), so its
 * time is the service's (event loop, database), not the disk's sync of a write on this shared machine.
 */
function probe(service: RealService): () => Promise<HttpOutcome> {
  return () => callHttpPost(service.port, "GetTriggerIdForAccount", { ...HONEST }, { timeoutMs: 10_000 });
}

/** One huge-field call: the operation, its parameters and the error code and parameter it must get. */
interface HugeCall {
  readonly label: string;
  readonly operation: string;
  readonly params: Record<string, string>;
  readonly code: string;
  readonly parameter: string;
}

function hugeCalls(list: string, newsletter: string, module: string, project: string): HugeCall[] {
  const big = "n".repeat(HUGE);
  const insert = {
    strEmail: "",
    strName: "",
    strFormat: "HTML",
    strCountryCode: "",
    strPhoneNumber: "",
    strMailingListID: list,
  };
  return [
    {
      label: "subscriber name",
      operation: "InsertSubscriberSid",
      params: { ...insert, strEmail: "huge-name@example.com", strName: big },
      code: "TooLong",
      parameter: "strName",
    },
    {
      label: "DD value",
      operation: "InsertSubscriberWithDemData",
      params: { ...insert, strEmail: "huge-dd@example.com", strDatafields: "DD1", strDatavalues: big },
      code: "TooLong",
      parameter: "strDatavalues",
    },
    {
      label: "UpdateSubscriberData value",
      operation: "UpdateSubscriberData",
      params: { strEmail: "hostile0@example.com", strDataField: "2", strDataValue: big },
      code: "TooLong",
      parameter: "strDataValue",
    },
    {
      label: "list name",
      operation: "UpdateMailingList",
      params: { strMailingListID: list, strListName: big },
      code: "TooLong",
      parameter: "strListName",
    },
    {
      label: "newsletter subject",
      operation: "InsertTemplateNewsletter",
      params: { strTemplateName: "T", strNewsletterName: "huge", strSubject: big, strTracking: "all" },
      code: "TooLong",
      parameter: "strSubject",
    },
    {
      label: "module code",
      operation: "InsertActiveTemplateModule",
      params: { strNewsletterID: newsletter, strModuleID: module, strModuleCode: big, strHolderID: "0" },
      code: "TooLong",
      parameter: "strModuleCode",
    },
    {
      label: "sender name",
      operation: "SendNewsletter",
      params: {
        strFromEmail: "news@example.com",
        strFromName: big,
        strNewsletterId: newsletter,
        strMailingListId: list,
        strSendDate: "2099-01-01",
        strSendTime: "",
      },
      code: "TooLong",
      parameter: "strFromName",
    },
    {
      label: "recipient name",
      operation: "InsertTransaction",
      params: { strId: project, strEmail: "huge-tx@example.com", strName: big },
      code: "TooLong",
      parameter: "strName",
    },
    {
      label: "transaction DD value",
      operation: "InsertTransaction",
      params: { strId: project, strEmail: "huge-tx@example.com", strDataFields: "DD1", strDataValues: big },
      code: "TooLong",
      parameter: "strDataValues",
    },
    {
      label: "CSV Name cell",
      operation: "InsertCsvSubscribersWithDemDataUpdateOption",
      params: { strMailingListId: list, strCsvData: `huge-csv@example.com,${big},HTML`, strUpdate: "true" },
      code: "InvalidCsv",
      parameter: "strCsvData",
    },
    {
      label: "SMS text",
      operation: "SendSmsWithSenderName",
      params: { senderName: "Shop", strCountryCode: "46", strPhoneNumber: "701234567", strMessage: big },
      code: "TooLong",
      parameter: "strMessage",
    },
    {
      label: "pending subscriber name",
      operation: "InsertSubscriberWithDemDataPendingOption",
      params: { ...insert, strEmail: "huge-pending@example.com", strName: big, strPending: "true" },
      code: "TooLong",
      parameter: "strName",
    },
  ];
}

/** What breaks mail, each value at most a field's length. */
function hostileFields(k: number): string[] {
  const urls = [
    "javascript:alert(document.cookie)",
    " \u0001JaVa\tScRiPt:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "script:alert(1)",
    "&#106;avascript:alert(1)",
    '"><img src=x onerror=alert(1)>',
    "https://ok.example/?a=1&b=2",
  ];
  const pad = (text: string, unit: string) =>
    text + unit.repeat(Math.max(0, MAX_FIELD_VALUE - Array.from(text).length));
  return Array.from({ length: 25 }, (_, i) => {
    const url = urls[(i + k) % urls.length]!;
    // The first four fields stand in links: a URL; the rest are as long as a field takes, in what costs
    // the most octets: quotes (6 escaped), emoji (4), combining marks, CR/LF and `=?`.
    if (i < 4) return url;
    return pad(`${url}\r\n=?UTF-8?B?QQ==?= `, ['"', "😀", "e\u0301", "=?"][i % 4]!).slice(
      0,
      MAX_FIELD_VALUE * 2,
    );
  }).map((v) => Array.from(v).slice(0, MAX_FIELD_VALUE).join(""));
}

function hostileName(k: number): string {
  const start = `${k} 😀 =?UTF-8?B?QQ==?= \r\nBcc: evil@example.com "Q" <x@y> e\u0301 `;
  return (start + "ü".repeat(MAX_NAME)).slice(0, MAX_NAME); // UTF-16 slice: at most 255 code points
}

export async function contentSection(rows: Row[]): Promise<void> {
  const service = await startRealService(
    {
      accounts: [
        { username: WRITER.strUsername, password: WRITER.strPassword, lists: ["News"] },
        { username: HONEST.strUsername, password: HONEST.strPassword },
      ],
    },
    [`--max-old-space-size=${HEAP_MB}`],
  );
  try {
    const dataDir = service.info.dataDir;
    const dbFile = path.join(dataDir, "service.db");
    const databaseUrl = `sqlite:${dbFile}`;
    const list = String(service.info.accounts[0]!.lists[0]!);

    // Content: a template putting fields in links (href, src, background, a java-prefixed href, a tracked
    // https link with a field in its query) and every DD field in text, a module, a project, DD1..DD25.
    const tags = Array.from({ length: 25 }, (_, i) => `{{DD${i + 1}}}`).join(" ");
    const html = path.join(dataDir, "t.html");
    fs.writeFileSync(
      html,
      `<html><body><h1>{{Name}}</h1>{{holder:0}}<a href="{{DD1}}">a</a><a href='java{{DD5}}'>b</a><img src={{DD2}}><table background="{{DD3}}"></table>` +
        `<a href="https://shop.example/p?id={{DD4}}">shop</a><p>${tags}</p><a href="{{unsubscribe}}">stop</a></body></html>`,
    );
    await admin(databaseUrl, [
      "template",
      "create",
      "--account",
      "writer",
      "--name",
      "T",
      "--html-file",
      html,
      "--text",
      `{{Name}} ${tags}\n{{holder:0}}`,
      "--subject",
      "{{Name}} {{DD5}}",
    ]);
    const module = idOf(
      await admin(databaseUrl, [
        "module",
        "create",
        "--account",
        "writer",
        "--name",
        "M",
        "--code",
        "<p>m</p>",
      ]),
    );
    const projectHtml = path.join(dataDir, "p.html");
    fs.writeFileSync(
      projectHtml,
      `<p>{{Name}}</p><a href="{{DD1}}">track</a><img src="{{DD2}}"><a href="java{{DD5}}">x</a><p>${tags}</p>`,
    );
    const project = idOf(
      await admin(databaseUrl, [
        "project",
        "create",
        "--account",
        "writer",
        "--name",
        "P",
        "--subject",
        "{{Name}} {{DD5}}",
        "--text",
        tags,
        "--html-file",
        projectHtml,
        "--from-name",
        "Shöp ".repeat(30),
      ]),
    );
    const newsletter = number(
      await call(service, "InsertTemplateNewsletter", {
        strTemplateName: "T",
        strNewsletterName: "N",
        strSubject: "",
        strTracking: "all",
      }),
    );
    // Modules filling the budget: links with merge tags, as long as one module may be, until the next would not fit.
    const moduleUnit = '<p><a href="{{DD1}}">{{DD6}}</a> {{DD7}}</p>';
    const unitCost = moduleUnit.length + 3 * MAX_FIELD_VALUE;
    const perModule = Math.floor(MAX_MODULE_CODE / moduleUnit.length);
    let budget = MAX_NEWSLETTER_MODULES;
    let placed = 0;
    while (budget >= unitCost) {
      const units = Math.min(perModule, Math.floor(budget / unitCost));
      await call(service, "InsertActiveTemplateModule", {
        strNewsletterID: newsletter,
        strModuleID: module,
        strModuleCode: moduleUnit.repeat(units),
        strHolderID: "0",
        strModuleIndex: String(placed++),
      });
      budget -= units * unitCost;
    }
    // Subscribers with hostile data at the limits (hostile0 is the one UpdateSubscriberData names).
    const insertHostile = (k: number) => {
      const fields = hostileFields(k);
      return call(service, "InsertSubscriberWithDemData", {
        strMailingListID: list,
        strEmail: `hostile${k}@example.com`,
        strName: hostileName(k),
        strFormat: "HTML",
        strCountryCode: "",
        strPhoneNumber: "",
        strDatafields: fields.map((_, i) => `DD${i + 1}`).join("|"),
        strDatavalues: fields.join("|"),
      });
    };
    for (let k = 0; k < 6; k++) await insertHostile(k);

    // Row 1: huge fields.
    const calls = hugeCalls(list, newsletter, module, project);
    // The bodies are encoded once, before the attack: encoding 10 MiB in this process while the probe runs
    // would delay the probe here, not in the service.
    const bodies = calls.map((c) =>
      Buffer.from(new URLSearchParams(allParams(c.operation, { ...WRITER, ...c.params })).toString(), "utf8"),
    );
    const answers: { call: HugeCall; outcome: HttpOutcome }[] = [];
    const attack = inParallel(calls.length * 2, 4, async (i) => {
      const c = calls[i % calls.length]!;
      const body = bodies[i % calls.length]!;
      answers.push({
        call: c,
        outcome: await request(service.port, `${ENDPOINT_PATH}/${c.operation}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
          timeoutMs: 60_000,
        }),
      });
    });
    const { probes } = await probeDuring(attack, probe(service));
    const memory = service.child.memory();
    const wrong = answers.filter(
      ({ call: c, outcome: o }) =>
        o.kind !== "answer" ||
        o.status !== 500 ||
        o.headers["x-error-code"] !== c.code ||
        o.headers["x-error-parameter"] !== c.parameter,
    );
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    const stored = db
      .prepare(
        "select (select count(*) from subscribers where length(name) > 255 or length(fields) > 20000) + (select count(*) from mailing_lists where length(name) > 255) + " +
          "(select count(*) from newsletters where length(subject) > 255) + (select count(*) from newsletter_modules where length(code) > 65536) + " +
          "(select count(*) from sendings where length(from_name) > 255) + (select count(*) from transactions where email like 'huge-%') + (select count(*) from sms_messages) as n",
      )
      .get() as { n: number };
    db.close();
    rows.push({
      attack:
        "content: 10 MiB values in 12 stored fields (names, DD values, subject, module code, CSV cell, SMS), 4 at a time",
      requests: answers.length,
      outcome: `${answers.length - wrong.length} refused naming the parameter (TooLong, CSV InvalidCsv)`,
      measured: `${stored.n} rows stored over a limit; peak RSS ${mb(memory.hwmMb)} (heap cap ${HEAP_MB} MiB); ${describeProbes(probes)}`,
      target: `every call refused naming its parameter, 0 stored, peak RSS <= ${PEAK_RSS_MB} MiB, probe <= 1 s`,
      pass:
        wrong.length === 0 &&
        stored.n === 0 &&
        memory.hwmMb <= PEAK_RSS_MB &&
        probes.maxMs <= 1000 &&
        probes.failed === 0 &&
        service.child.alive,
      details: [
        ...wrong
          .slice(0, 6)
          .map(
            ({ call: c, outcome: o }) =>
              `${c.label}: ${o.kind === "answer" ? `${o.status} ${String(o.headers["x-error-code"])}/${String(o.headers["x-error-parameter"])} ${o.body.slice(0, 120)}` : o.detail}`,
          ),
        ...probes.examples,
      ],
    });

    // Row 2: hostile but accepted data, through a newsletter, a trigger and transactional mail.
    await admin(databaseUrl, [
      "trigger",
      "create",
      "--account",
      "writer",
      "--name",
      "W",
      "--list",
      list,
      "--newsletter",
      newsletter,
      "--from-email",
      "welcome@example.com",
      "--from-name",
      "Wëlcome =?x?= ".repeat(12),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (let k = 6; k < 12; k++) await insertHostile(k); // after the trigger: each gets the trigger's mail too
    await call(service, "SendNewsletter", {
      strFromEmail: "news@example.com",
      strFromName: `${"Nëws 😀 ".repeat(30)}\r\n=?`,
      strNewsletterId: newsletter,
      strMailingListId: list,
      strSendDate: "",
      strSendTime: "",
    });
    for (let k = 0; k < 12; k++) {
      const fields = hostileFields(k);
      await call(service, "InsertTransaction", {
        strId: project,
        strIdentifier: "",
        strEmail: `tx${k}@example.com`,
        strName: hostileName(k),
        strFormat: "HTML",
        strSendTime: "",
        strDataFields: fields.map((_, i) => `DD${i + 1}`).join("|"),
        strDataValues: fields.join("|"),
      });
    }
    const outbox = path.join(dataDir, "outbox");
    const db2 = new Database(dbFile, { readonly: true, fileMustExist: true });
    const queued = () => (db2.prepare("select count(*) as n from mail_outbox").get() as { n: number }).n;
    const emls = () =>
      fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith(".eml")) : [];
    // 12 newsletter mails (+ any huge-field subscriber the service kept), 6 trigger mails, 12 transactional.
    const started = performance.now();
    const delivered = (async () => {
      for (let waited = 0; waited < 120_000; waited += 200) {
        if (queued() >= 30 && emls().length >= queued()) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const during = await probeDuring(delivered, probe(service));
    const seconds = (performance.now() - started) / 1000;
    const total = queued();
    db2.close();
    let longest = 0;
    let longestData = 0;
    let largest = 0;
    let over998 = 0;
    const bad: string[] = [];
    for (const file of emls()) {
      const check = await checkMail(fs.readFileSync(path.join(outbox, file), "utf8"));
      longest = Math.max(longest, check.longestLine);
      longestData = Math.max(longestData, check.longestDataLine);
      largest = Math.max(largest, check.size);
      if (check.longestLine > 998) over998++;
      bad.push(...check.badUrls.map((u) => `${file}: ${u}`));
    }
    const files = emls().length;
    rows.push({
      attack:
        "content: 12 subscribers with hostile data at the limits; a tracked newsletter (modules at the budget), a trigger, 12 transactional mails",
      requests: files,
      outcome: `${files} of ${total} queued mails delivered as .eml in ${seconds.toFixed(1)} s`,
      measured: `longest line ${longest} octets (From/To/Subject ${longestData}), ${bad.length} URL attributes not http(s)/mailto, largest mail ${(largest / 1048576).toFixed(2)} MiB; ${describeProbes(during.probes)}`,
      target: `>= 30 mails, every line <= 998 (data lines <= 78), 0 such URLs, each mail <= ${(SIZE_BOUND / 1048576).toFixed(2)} MiB, probe <= 1 s`,
      pass:
        files >= 30 &&
        files === total &&
        over998 === 0 &&
        longestData <= 78 &&
        bad.length === 0 &&
        largest <= SIZE_BOUND &&
        during.probes.maxMs <= 1000 &&
        during.probes.failed === 0,
      details: [...bad.slice(0, 5), ...during.probes.examples],
    });
  } finally {
    await service.child.stop();
  }
}
