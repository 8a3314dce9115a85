// Sendings as the tests set them up: an account, a newsletter with a module and a filter, list members written in
// bulk, recipient rows counted by state, and a bounded wait (sendings, sending control tests).

import type { Store } from "../../../service/db/database.js";
import type { Account, MembershipState } from "../../../service/db/schema.js";

/** An account of that user name (no password that signs in), as its row. */
export async function seedAccount(store: Store, username: string): Promise<Account> {
  const row = await store.db
    .insertInto("accounts")
    .values({ username, password_hash: "x", created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  return store.db.selectFrom("accounts").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
}

export async function seedNewsletter(
  store: Store,
  accountId: number,
  name: string,
): Promise<{ newsletterId: number; filterId: number }> {
  const now = Date.now();
  const { db } = store;
  const template = await db
    .insertInto("templates")
    .values({
      account_id: accountId,
      name,
      subject: "News for {{Name}}",
      html: '<p>Hello {{Name}}</p>{{holder:1}}<p><a href="{{unsubscribe}}">Unsubscribe</a></p>',
      text: "Hello {{Name}}\n{{holder:1}}\nUnsubscribe: {{unsubscribe}}\n",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const newsletter = await db
    .insertInto("newsletters")
    .values({
      account_id: accountId,
      template_id: template.id,
      name,
      subject: "News for {{Name}}",
      tracking: "no",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const module = await db
    .insertInto("modules")
    .values({ account_id: accountId, name: `${name} m`, code: "<p>Module {{DD3}}</p>", created_at: now })
    .returning("id")
    .executeTakeFirstOrThrow();
  await db
    .insertInto("newsletter_modules")
    .values({
      account_id: accountId,
      newsletter_id: newsletter.id,
      module_id: module.id,
      code: "<p>Module {{DD3}}</p>",
      holder_id: 1,
      filter_id: null,
      created_at: now,
    })
    .execute();
  const filter = await db
    .insertInto("filters")
    .values({
      account_id: accountId,
      name: `${name} SE`,
      field: "DD3",
      operator: "=",
      value: "SE",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { newsletterId: newsletter.id, filterId: filter.id };
}

export interface Member {
  email: string;
  state: MembershipState;
  dd3?: string;
  optedOut?: boolean;
}

/** Subscribers with memberships of the list (and opt-outs), written directly in bulk; returns their ids by e-mail. */
export async function addMembers(
  store: Store,
  accountId: number,
  listId: number,
  members: readonly Member[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const now = Date.now();
  for (let i = 0; i < members.length; i += 500) {
    const chunk = members.slice(i, i + 500);
    await store.write(async (trx) => {
      const rows = await trx
        .insertInto("subscribers")
        .values(
          chunk.map((m) => ({
            account_id: accountId,
            email: m.email,
            email_key: m.email.toLowerCase(),
            name: m.email.split("@")[0]!,
            fields: JSON.stringify(m.dd3 === undefined ? {} : { "3": m.dd3 }),
            created_at: now,
          })),
        )
        .returning(["id", "email"])
        .execute();
      for (const r of rows) ids.set(r.email, r.id);
      await trx
        .insertInto("memberships")
        .values(
          chunk.map((m) => ({
            list_id: listId,
            subscriber_id: ids.get(m.email)!,
            account_id: accountId,
            state: m.state,
            created_at: now,
            changed_at: now,
          })),
        )
        .execute();
      const opted = chunk.filter((m) => m.optedOut === true);
      if (opted.length > 0)
        await trx
          .insertInto("optouts")
          .values(
            opted.map((m) => ({ account_id: accountId, email_key: m.email.toLowerCase(), created_at: now })),
          )
          .execute();
    });
  }
  return ids;
}

export async function countRows(store: Store, sendingId: number) {
  const rows = await store.db
    .selectFrom("sending_recipients")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .where("sending_id", "=", sendingId)
    .groupBy("state")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

export async function waitFor(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
