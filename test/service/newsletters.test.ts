// Template newsletters on SQLite and PostgreSQL: templates, modules and filters made with the admin CLI
// (and its refusals, which write nothing), InsertTemplateNewsletter, InsertActiveTemplateModule and
// GetNewsletterFilters through the whole service (defaults, other accounts' names and ids NotFound,
// distinct filters in id order, wrong credentials), and the pure pieces the sending worker renders with:
// evaluateFilter (every operator, fixed and DD fields, a missing DD value) and renderNewsletter (holder
// and index order, a filtered module only for matching recipients, markup in a name escaped in HTML).

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FilterRule,
  type PlacedModule,
  type Recipient,
  evaluateFilter,
  loadNewsletterContent,
  renderNewsletter,
  templateHolders,
} from "../../service/operations/mailing/newsletters.js";
import { htmlToText } from "../../service/delivery/plain-text.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, fault, startService, admin } from "./support/service.js";

const recipient = (over: Partial<Recipient> = {}): Recipient => ({
  email: "Ann@Example.com",
  name: "Ann",
  format: "HTML",
  country_code: "46",
  phone: "701234567",
  fields: JSON.stringify({ "3": "SE", "7": "Gold member" }),
  ...over,
});

describe("evaluateFilter", () => {
  const f = (field: string, operator: FilterRule["operator"], value = ""): FilterRule => ({
    field,
    operator,
    value,
  });
  const ann = recipient();
  it.each([
    [f("DD3", "=", "SE"), true],
    [f("DD3", "=", "se"), true],
    [f("dd3", "=", "SE"), true],
    [f("DD3", "=", "S"), false],
    [f("DD3", "!=", "NO"), true],
    [f("DD3", "!=", "Se"), false],
    [f("DD7", "contains", "GOLD"), true],
    [f("DD7", "contains", "silver"), false],
    [f("DD7", "startsWith", "gold"), true],
    [f("DD7", "startsWith", "member"), false],
    [f("DD7", "empty"), false],
    [f("DD7", "notEmpty"), true],
    [f("DD9", "empty"), true],
    [f("DD9", "notEmpty"), false],
    [f("DD9", "=", ""), true],
    [f("DD9", "!=", "x"), true],
    [f("DD9", "contains", "x"), false],
    [f("Email", "=", "ann@example.com"), true],
    [f("Email", "startsWith", "ANN@"), true],
    [f("Name", "contains", "nn"), true],
    [f("Format", "=", "Text"), false],
    [f("Format", "=", "html"), true],
    [f("CountryCode", "=", "46"), true],
    [f("Phone", "startsWith", "70"), true],
    [f("Phone", "empty"), false],
    [f("Unknown", "=", ""), false],
    [f("DD3", "like" as FilterRule["operator"], "SE"), false],
  ])("%o → %s", (filter, expected) => {
    expect(evaluateFilter(filter, ann)).toBe(expected);
  });

  it("treats white space only as empty, and SQL-looking values as plain text", () => {
    const r = recipient({ fields: JSON.stringify({ "1": "  ", "2": "x' OR '1'='1" }) });
    expect(evaluateFilter(f("DD1", "empty"), r)).toBe(true);
    expect(evaluateFilter(f("DD2", "=", "x' OR '1'='1"), r)).toBe(true);
    expect(evaluateFilter(f("DD2", "=", "' OR '1'='1"), r)).toBe(false);
    expect(evaluateFilter(f("DD1", "=", "x"), recipient({ fields: "not json" }))).toBe(false);
  });
});

describe("renderNewsletter", () => {
  const template = {
    html: '<h1>Hi {{Name}}</h1><div>{{holder:1}}</div><div>{{ Holder:0 }}</div><p>{{holder:5}}</p><a href="{{unsubscribe}}">stop</a>',
    text: "Hi {{Name}}\n{{holder:0}}\n--\n{{holder:1}}",
  };
  const placed = (
    id: number,
    holder: number,
    index: number,
    code: string,
    filter: FilterRule | null = null,
  ): PlacedModule => ({
    id,
    code,
    module_index: index,
    holder_id: holder,
    filter,
  });
  const modules = [
    placed(1, 0, 2, "<p>second</p>"),
    placed(2, 0, 1, "<p>first for {{DD3}}</p>"),
    placed(3, 1, 0, "<p>Swedes only</p>", { field: "DD3", operator: "=", value: "se" }),
    placed(4, 0, 2, "<p>third (same index, later id)</p>"),
    placed(5, 1, 1, "<b>{{holder:0}}</b>"),
  ];

  it("fills holders with their modules in index then id order, leaving unused holders empty", () => {
    const out = renderNewsletter(
      template,
      { subject: "News for {{Name}}" },
      modules,
      recipient(),
      new Map([["unsubscribe", "https://x.test/u?a=1&b=2"]]),
    );
    expect(out.subject).toBe("News for Ann");
    expect(out.html).toBe(
      "<h1>Hi Ann</h1><div><p>Swedes only</p><b>{{holder:0}}</b></div>" +
        "<div><p>first for SE</p><p>second</p><p>third (same index, later id)</p></div><p></p>" +
        '<a href="https://x.test/u?a=1&amp;b=2">stop</a>',
    );
    expect(out.text).toBe(
      "Hi Ann\nfirst for SE\nsecond\nthird (same index, later id)\n--\nSwedes only\n{{holder:0}}",
    );
  });

  it("shows a filtered module only to recipients matching the filter", () => {
    const norwegian = recipient({ fields: JSON.stringify({ "3": "NO" }) });
    const out = renderNewsletter(template, { subject: "S" }, modules, norwegian);
    expect(out.html).not.toContain("Swedes only");
    expect(out.html).toContain("<div><b>{{holder:0}}</b></div>");
    expect(out.html).toContain("first for NO");
    expect(out.html).toContain('href=""');
  });

  it("escapes markup in a name in the HTML, keeps it raw in the text, one line in the subject", () => {
    const name = `<script>alert(1)</script>"&'`;
    const out = renderNewsletter(
      template,
      { subject: "For {{Name}}" },
      [],
      recipient({ name: `${name}\r\nBcc: x@example.com` }),
    );
    expect(out.html).toContain(
      "<h1>Hi &lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;\r\nBcc: x@example.com</h1>",
    );
    expect(out.html).not.toContain("<script>");
    expect(out.text.startsWith(`Hi ${name}\r\nBcc: x@example.com\n`)).toBe(true);
    expect(out.subject).toBe(`For ${name} Bcc: x@example.com`);
  });

  it("lists a template's holders and turns module HTML into text", () => {
    expect(templateHolders(template)).toEqual([0, 1, 5]);
    expect(templateHolders({ html: "<p>none {{holder}} {{holder:x}}</p>", text: "" })).toEqual([]);
    expect(htmlToText("<p>A &amp; B</p><br/>C<script>x</script>&lt;tag&gt;")).toBe("A & B\n\nC<tag>");
    expect(
      htmlToText('<p>Read <a class="x" href="https://x.test/?a=1&amp;b={{DD1}}">the <b>news</b></a></p>'),
    ).toBe("Read the news (https://x.test/?a=1&b={{DD1}})");
  });
});

describeEngines("template newsletters", (engine) => {
  let svc: TestService;
  let alice: number;
  let tmp: string;
  let mainTemplate: number;
  let bareTemplate: number;
  let moduleA: number;
  let moduleB: number;
  let sweden: number;
  let gold: number;
  let bobNewsletter: number;
  let bobModule: number;
  let bobFilter: number;

  const ok = async (args: string[]) => {
    const r = await admin(svc.databaseUrl, [...args, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { id: number } & Record<string, unknown>;
  };
  const count = async (table: "templates" | "modules" | "filters" | "newsletters" | "newsletter_modules") =>
    Number(
      (
        await svc.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    svc = await startService(engine, "newsletters");
    alice = await svc.createAccount("alice", "alice-secret-1");
    await svc.createAccount("bob", "bob-secret-12");
    tmp = fs.mkdtempSync(path.join(svc.outboxDir, "..", "eas-newsletters-"));
    fs.writeFileSync(path.join(tmp, "main.html"), "<h1>Hello {{Name}}</h1>{{holder:0}}<hr>{{holder:2}}");
    fs.writeFileSync(path.join(tmp, "main.txt"), "Hello {{Name}}\n{{holder:0}}");
    fs.writeFileSync(path.join(tmp, "module.html"), "<p>Module A for {{DD3}}</p>");
    mainTemplate = (
      await ok([
        "template",
        "create",
        "--account",
        "alice",
        "--name",
        "Main",
        "--html-file",
        path.join(tmp, "main.html"),
        "--text-file",
        path.join(tmp, "main.txt"),
        "--subject",
        "Monthly news",
      ])
    ).id;
    bareTemplate = (
      await ok([
        "template",
        "create",
        "--account",
        "alice",
        "--name",
        "Bare",
        "--html",
        "<p>{{holder:0}}</p>",
      ])
    ).id;
    moduleA = (
      await ok([
        "module",
        "create",
        "--account",
        "alice",
        "--name",
        "A",
        "--code-file",
        path.join(tmp, "module.html"),
      ])
    ).id;
    moduleB = (await ok(["module", "create", "--account", "alice", "--name", "B", "--code", "<p>B</p>"])).id;
    sweden = (
      await ok([
        "filter",
        "create",
        "--account",
        "alice",
        "--name",
        "Sweden",
        "--field",
        "dd3",
        "--operator",
        "=",
        "--value",
        "SE",
      ])
    ).id;
    gold = (
      await ok([
        "filter",
        "create",
        "--account",
        "alice",
        "--name",
        "Gold",
        "--field",
        "DD7",
        "--operator",
        "notempty",
      ])
    ).id;
    await ok([
      "template",
      "create",
      "--account",
      "bob",
      "--name",
      "Bob's",
      "--html",
      "<p>{{holder:0}}</p>",
      "--subject",
      "Bob",
    ]);
    bobModule = (
      await ok(["module", "create", "--account", "bob", "--name", "Bob module", "--code", "<p>bob</p>"])
    ).id;
    bobFilter = (
      await ok([
        "filter",
        "create",
        "--account",
        "bob",
        "--name",
        "Bob filter",
        "--field",
        "Email",
        "--operator",
        "contains",
        "--value",
        "bob",
      ])
    ).id;
    bobNewsletter = await svc
      .client("bob", "bob-secret-12")
      .InsertTemplateNewsletter({ strTemplateName: "Bob's", strNewsletterName: "Bob's news" });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const alices = () => svc.client("alice", "alice-secret-1");

  it("the admin CLI stores templates, modules and filters in canonical form and shows them", async () => {
    const shown = await ok(["template", "show", "--account", "alice", "--id", String(mainTemplate)]);
    expect(shown).toMatchObject({
      name: "Main",
      subject: "Monthly news",
      holders: [0, 2],
      text: "Hello {{Name}}\n{{holder:0}}",
    });
    const filters = (await admin(svc.databaseUrl, ["filter", "show", "--account", "alice", "--json"])).stdout;
    expect(JSON.parse(filters)).toMatchObject([
      { id: sweden, field: "DD3", operator: "=", value: "SE" },
      { id: gold, field: "DD7", operator: "notEmpty", value: "" },
    ]);
    const modules = await admin(svc.databaseUrl, ["module", "show", "--account", "alice"]);
    expect(modules.stdout).toMatch(/^ID\s+NAME\s+CODE/);
    expect(modules.stdout).toContain("<p>B</p>");
    expect((await admin(svc.databaseUrl, ["template", "show", "--account", "alice"])).stdout).toContain(
      "Bare",
    );
  });

  it("admin refusals name the option and write nothing", async () => {
    const before = await Promise.all([count("templates"), count("modules"), count("filters")]);
    const refusals: [string[], RegExp][] = [
      [
        [
          "filter",
          "create",
          "--account",
          "alice",
          "--name",
          "X",
          "--field",
          "DD3",
          "--operator",
          "like",
          "--value",
          "SE",
        ],
        /--operator must be one of = != contains startsWith empty notEmpty/,
      ],
      [
        [
          "filter",
          "create",
          "--account",
          "alice",
          "--name",
          "X",
          "--field",
          "Country",
          "--operator",
          "=",
          "--value",
          "SE",
        ],
        /--field must be Email, Name/,
      ],
      [
        [
          "filter",
          "create",
          "--account",
          "alice",
          "--name",
          "X",
          "--field",
          "DD101",
          "--operator",
          "=",
          "--value",
          "SE",
        ],
        /--field must be/,
      ],
      [
        [
          "filter",
          "create",
          "--account",
          "alice",
          "--name",
          "X",
          "--field",
          "DD30",
          "--operator",
          "=",
          "--value",
          "SE",
        ],
        /DD30 is not activated/,
      ],
      [
        ["filter", "create", "--account", "alice", "--name", "X", "--field", "DD3", "--operator", "="],
        /--value is required/,
      ],
      [
        [
          "filter",
          "create",
          "--account",
          "alice",
          "--name",
          "X",
          "--field",
          "DD3",
          "--operator",
          "empty",
          "--value",
          "x",
        ],
        /takes no value/,
      ],
      [
        ["template", "create", "--account", "alice", "--name", "Main", "--html", "<p>dup</p>"],
        /has a template named "Main" already/,
      ],
      [
        [
          "template",
          "create",
          "--account",
          "alice",
          "--name",
          "Y",
          "--html-file",
          path.join(tmp, "missing.html"),
        ],
        /--html-file: cannot read/,
      ],
      [["template", "create", "--account", "alice", "--name", "Y"], /an HTML body is required/],
      [
        [
          "module",
          "create",
          "--account",
          "alice",
          "--name",
          "Z",
          "--code",
          "a",
          "--code-file",
          path.join(tmp, "module.html"),
        ],
        /give --code or --code-file, not both/,
      ],
      [
        ["module", "create", "--account", "nobody", "--name", "Z", "--code", "a"],
        /--account: no account named "nobody"/,
      ],
    ];
    for (const [args, message] of refusals) {
      const r = await admin(svc.databaseUrl, args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(message);
    }
    expect(await Promise.all([count("templates"), count("modules"), count("filters")])).toEqual(before);
  });

  it("InsertTemplateNewsletter creates a newsletter with the defaults: template subject, tracking all", async () => {
    const id = await alices().InsertTemplateNewsletter({ strTemplateName: "Main", strNewsletterName: "May" });
    expect(typeof id).toBe("number");
    const row = await svc.app.store.db
      .selectFrom("newsletters")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      account_id: alice,
      template_id: mainTemplate,
      name: "May",
      subject: "Monthly news",
      tracking: "all",
    });
    const roi = await alices().InsertTemplateNewsletter({
      strTemplateName: "Main",
      strNewsletterName: "June",
      strSubject: "June {{Name}}",
      strTracking: "roi",
    });
    expect(
      await svc.app.store.db
        .selectFrom("newsletters")
        .select(["subject", "tracking"])
        .where("id", "=", roi)
        .executeTakeFirstOrThrow(),
    ).toEqual({
      subject: "June {{Name}}",
      tracking: "roi",
    });
    const no = await alices().InsertTemplateNewsletter({
      strTemplateName: "Main",
      strNewsletterName: "July",
      strTracking: "no",
    });
    expect(
      (
        await svc.app.store.db
          .selectFrom("newsletters")
          .select("tracking")
          .where("id", "=", no)
          .executeTakeFirstOrThrow()
      ).tracking,
    ).toBe("no");
  });

  it("InsertTemplateNewsletter refuses another account's template, a bad tracking value and a missing subject", async () => {
    const before = await count("newsletters");
    const other = await fault(
      alices().InsertTemplateNewsletter({ strTemplateName: "Bob's", strNewsletterName: "x" }),
    );
    expect(other.errorCode).toBe("NotFound");
    expect(other.message).toContain("strTemplateName");
    expect(
      (await fault(alices().InsertTemplateNewsletter({ strTemplateName: "main", strNewsletterName: "x" })))
        .errorCode,
    ).toBe("NotFound");
    const tracking = await fault(
      alices().InsertTemplateNewsletter({
        strTemplateName: "Main",
        strNewsletterName: "x",
        strTracking: "some" as "all",
      }),
    );
    expect(tracking.message).toContain("strTracking");
    const subject = await fault(
      alices().InsertTemplateNewsletter({ strTemplateName: "Bare", strNewsletterName: "x" }),
    );
    expect(subject.errorCode).toBe("InvalidValue");
    expect(subject.message).toContain("strSubject");
    expect(await count("newsletters")).toBe(before);
  });

  it("InsertActiveTemplateModule copies the module's code with index 0 and holder 0 by default, and keeps given values", async () => {
    const newsletter = await alices().InsertTemplateNewsletter({
      strTemplateName: "Main",
      strNewsletterName: "Modules",
    });
    const first = await alices().InsertActiveTemplateModule({
      strNewsletterID: String(newsletter),
      strModuleID: String(moduleA),
    });
    const second = await alices().InsertActiveTemplateModule({
      strNewsletterID: String(newsletter),
      strModuleID: String(moduleB),
      strModuleCode: "<p>B, edited</p>",
      strModuleIndex: "3",
      strHolderID: "2",
      strFilterID: String(sweden),
    });
    const rows = await svc.app.store.db
      .selectFrom("newsletter_modules")
      .selectAll()
      .where("newsletter_id", "=", newsletter)
      .orderBy("id")
      .execute();
    expect(rows.map((r) => r.id)).toEqual([first, second]);
    expect(rows[0]).toMatchObject({
      account_id: alice,
      module_id: moduleA,
      code: "<p>Module A for {{DD3}}</p>",
      module_index: 0,
      holder_id: 0,
      filter_id: null,
    });
    expect(rows[1]).toMatchObject({
      module_id: moduleB,
      code: "<p>B, edited</p>",
      module_index: 3,
      holder_id: 2,
      filter_id: sweden,
    });
    const content = await loadNewsletterContent(svc.app.store.db, alice, newsletter);
    const swede = recipient({ name: "Sven", fields: JSON.stringify({ "3": "SE" }) });
    const dane = recipient({ name: "Dan", fields: JSON.stringify({ "3": "DK" }) });
    expect(renderNewsletter(content!.template, content!.newsletter, content!.modules, swede).html).toBe(
      "<h1>Hello Sven</h1><p>Module A for SE</p><hr><p>B, edited</p>",
    );
    expect(renderNewsletter(content!.template, content!.newsletter, content!.modules, dane).html).toBe(
      "<h1>Hello Dan</h1><p>Module A for DK</p><hr>",
    );
    expect(await loadNewsletterContent(svc.app.store.db, alice, bobNewsletter)).toBeUndefined();
  });

  it("InsertActiveTemplateModule: other accounts' ids are NotFound naming the parameter; bad index and holder are refused; nothing written", async () => {
    const newsletter = await alices().InsertTemplateNewsletter({
      strTemplateName: "Main",
      strNewsletterName: "Refusals",
    });
    const before = await count("newsletter_modules");
    const base = { strNewsletterID: String(newsletter), strModuleID: String(moduleA) };
    const cases: [Parameters<ReturnType<typeof alices>["InsertActiveTemplateModule"]>[0], string, string][] =
      [
        [{ ...base, strNewsletterID: String(bobNewsletter) }, "NotFound", "strNewsletterID"],
        [{ ...base, strNewsletterID: "abc" }, "NotFound", "strNewsletterID"],
        [{ ...base, strModuleID: String(bobModule) }, "NotFound", "strModuleID"],
        [{ ...base, strModuleID: "999999" }, "NotFound", "strModuleID"],
        [{ ...base, strFilterID: String(bobFilter) }, "NotFound", "strFilterID"],
        [{ ...base, strFilterID: "x" }, "NotFound", "strFilterID"],
        [{ ...base, strHolderID: "1" }, "InvalidValue", "strHolderID"],
      ];
    for (const [params, code, parameter] of cases) {
      const error = await fault(alices().InsertActiveTemplateModule(params));
      expect(error.errorCode, JSON.stringify(params)).toBe(code);
      expect(error.message).toContain(parameter);
    }
    for (const [parameter, value] of [
      ["strModuleIndex", "-1"],
      ["strHolderID", "1.5"],
      ["strModuleIndex", "x"],
    ] as const) {
      const error = await fault(alices().InsertActiveTemplateModule({ ...base, [parameter]: value }));
      expect(error.message).toContain(parameter);
    }
    expect(await count("newsletter_modules")).toBe(before);
  });

  it("GetNewsletterFilters lists the distinct filters the modules use, by id; another account's newsletter is NotFound", async () => {
    const newsletter = await alices().InsertTemplateNewsletter({
      strTemplateName: "Main",
      strNewsletterName: "Filters",
    });
    expect(await alices().GetNewsletterFilters({ intNewsletterId: newsletter })).toEqual([]);
    const place = (filter?: number) =>
      alices().InsertActiveTemplateModule({
        strNewsletterID: String(newsletter),
        strModuleID: String(moduleB),
        ...(filter === undefined ? {} : { strFilterID: String(filter) }),
      });
    await place(gold);
    await place(sweden);
    await place();
    await place(gold);
    expect(await alices().GetNewsletterFilters({ intNewsletterId: newsletter })).toEqual([
      { Id: sweden, Name: "Sweden" },
      { Id: gold, Name: "Gold" },
    ]);
    const other = await fault(alices().GetNewsletterFilters({ intNewsletterId: bobNewsletter }));
    expect(other.errorCode).toBe("NotFound");
    expect(other.message).toContain("intNewsletterId");
    expect((await fault(alices().GetNewsletterFilters({ intNewsletterId: 0 }))).errorCode).toBe("NotFound");
  });

  it("wrong credentials are InvalidCredentials for all three operations", async () => {
    const wrong = svc.client("alice", "not-the-password");
    for (const call of [
      () => wrong.InsertTemplateNewsletter({ strTemplateName: "Main", strNewsletterName: "x" }),
      () => wrong.InsertActiveTemplateModule({ strNewsletterID: "1", strModuleID: String(moduleA) }),
      () => wrong.GetNewsletterFilters({ intNewsletterId: 1 }),
    ]) {
      expect((await fault(call())).errorCode).toBe("InvalidCredentials");
    }
  });

  it("a template without that holder in its text still accepts it from its HTML (bareTemplate has holder 0 only)", async () => {
    const newsletter = await alices().InsertTemplateNewsletter({
      strTemplateName: "Bare",
      strNewsletterName: "Bare",
      strSubject: "Bare",
    });
    expect(
      await svc.app.store.db
        .selectFrom("newsletters")
        .select("template_id")
        .where("id", "=", newsletter)
        .executeTakeFirstOrThrow(),
    ).toEqual({ template_id: bareTemplate });
    expect(
      typeof (await alices().InsertActiveTemplateModule({
        strNewsletterID: String(newsletter),
        strModuleID: String(moduleA),
        strHolderID: "0",
      })),
    ).toBe("number");
  });
});
