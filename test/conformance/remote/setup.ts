// `npm run conformance -- setup`: makes, on our own service, the account and the data the live-endpoint
// cases need (fixtures.ts), the way an operator would: the admin CLI on the service's database for what
// only it makes (account, list, template, module, filter, trigger, project), the service's own operations
// for the rest (a subscriber, a newsletter, a sending). Returns the fixtures file's content.

import { createClient } from "../../../generated/client.js";
import { admin as runAdminCommand } from "../../service/support/service.js";
import type { FixtureKey } from "../fixtures.js";

export interface SetupOptions {
  /** The endpoint, `http://host:port/ExternalAPIService.asmx`. */
  readonly url: string;
  /** The service's DATABASE_URL (the admin CLI's; no password on a command line). */
  readonly databaseUrl: string;
  readonly username: string;
  /** At least 8 characters (the admin CLI's rule). Never written to the fixtures. */
  readonly password: string;
  /** The subscriber's address (default conformance@example.test). */
  readonly email?: string;
  /**
   * A CSV file's URL the service may fetch, written as the importUrl fixture (the service must allow its
   * host: IMPORT_ALLOW_HOSTS for a private address); none: the queued import's cases may be refused
   * ImportUrlRefused, which then passes as missing data.
   */
  readonly importUrl?: string;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** What setup made: the fixtures file's content (username and every fixture, no password). */
export type SetupResult = { readonly username: string } & Readonly<
  Record<Exclude<FixtureKey, "importUrl">, string>
> & {
    readonly importUrl?: string;
  };

/** One admin CLI command in-process (`npm run admin -- …`), its JSON output parsed; throws its error line. */
async function admin(
  databaseUrl: string,
  argv: readonly string[],
  stdin = "",
): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await runAdminCommand(databaseUrl, [...argv, "--json"], stdin);
  if (code !== 0)
    throw new Error(`admin ${argv.slice(0, 2).join(" ")}: ${stderr.trim() || `exit code ${code}`}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

function idOf(made: Record<string, unknown>, what: string): string {
  const id = made.id;
  if (typeof id !== "number" && typeof id !== "string") throw new Error(`admin ${what}: no id in its output`);
  return String(id);
}

export async function setupFixtures(options: SetupOptions): Promise<SetupResult> {
  const log = options.log ?? (() => undefined);
  const db = options.databaseUrl;
  const account = options.username;
  const email = options.email ?? "conformance@example.test";
  const name = "Conformance";
  const made = (what: string, id: string) => {
    log(`${what}: ${id}`);
    return id;
  };

  await admin(db, ["account", "create", "--username", account], `${options.password}\n`);
  log(`account: ${account}`);
  const list = made(
    "list",
    idOf(await admin(db, ["list", "create", "--account", account, "--name", name]), "list create"),
  );
  const client = createClient({
    baseUrl: options.url,
    username: account,
    password: options.password,
    binding: "soap11",
  });
  const subscriber = made(
    "subscriber",
    String(
      await client.InsertSubscriberSid({
        strEmail: email,
        strName: name,
        strMailingListID: list,
        strFormat: "HTML",
        strCountryCode: "",
        strPhoneNumber: "",
      }),
    ),
  );
  const html = '<p>Hello {{Name}}</p>{{holder:0}}<p><a href="{{unsubscribe}}">Unsubscribe</a></p>';
  await admin(db, [
    "template",
    "create",
    "--account",
    account,
    "--name",
    name,
    "--html",
    html,
    "--subject",
    name,
  ]);
  log(`template: ${name}`);
  const module = made(
    "module",
    idOf(
      await admin(db, ["module", "create", "--account", account, "--name", name, "--code", "<p>Module</p>"]),
      "module create",
    ),
  );
  const filter = made(
    "filter",
    idOf(
      await admin(db, [
        "filter",
        "create",
        "--account",
        account,
        "--name",
        name,
        "--field",
        "Email",
        "--operator",
        "contains",
        "--value",
        "@",
      ]),
      "filter create",
    ),
  );
  const newsletter = made(
    "newsletter",
    String(
      await client.InsertTemplateNewsletter({
        strTemplateName: name,
        strNewsletterName: name,
        strSubject: "",
        strTracking: "all",
      }),
    ),
  );
  const trigger = made(
    "trigger",
    idOf(
      await admin(db, [
        "trigger",
        "create",
        "--account",
        account,
        "--name",
        name,
        "--list",
        list,
        "--newsletter",
        newsletter,
        "--from-email",
        email,
      ]),
      "trigger create",
    ),
  );
  const sending = made(
    "sending",
    String(
      await client.SendNewsletter({
        strFromEmail: email,
        strFromName: name,
        strNewsletterId: newsletter,
        strMailingListId: list,
        strSendDate: "",
        strSendTime: "",
        strFilterId: "",
      }),
    ),
  );
  const project = made(
    "project",
    idOf(
      await admin(db, [
        "project",
        "create",
        "--account",
        account,
        "--name",
        name,
        "--subject",
        name,
        "--text",
        "Hello {{Name}}",
      ]),
      "project create",
    ),
  );
  return {
    username: account,
    list,
    subscriber,
    email,
    sending,
    trigger,
    newsletter,
    template: name,
    module,
    filter,
    project,
    ...(options.importUrl === undefined ? {} : { importUrl: options.importUrl }),
  };
}
