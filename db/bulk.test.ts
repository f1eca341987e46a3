// The bulk helpers on both drivers: anyOf/noneOf match what inArray/notInArray match, whatever the
// values hold, and tableRows maps a raw `returning *` exactly as drizzle's own select does.
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anyOf, insertJsonRows, noneOf, tableRows } from "./bulk.ts";
import { queryRows } from "./client.ts";
import { customers, orders } from "./schema/index.ts";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";

let t: TestDatabase;
let organizationId: string;
const emails = ['quote"d@example.com', "back\\slash@example.com", "comma,brace{}@example.com"];
beforeAll(async () => {
  t = await openTestDatabase();
  const [org] = await queryRows<{ id: string }>(
    t.database.db,
    sql`insert into organization (name, slug, created_at) values ('Bulk', 'bulk', now())
        returning id`,
  );
  organizationId = org!.id;
  await t.database.db
    .insert(customers)
    .values(emails.map((email) => ({ organizationId, email, metadata: { k: email } })));
});
afterAll(() => t?.dispose());

describe("anyOf and noneOf", () => {
  const emailsOf = async (where: ReturnType<typeof anyOf>) =>
    (
      await t.database.db
        .select({ email: customers.email })
        .from(customers)
        .where(where)
        .orderBy(asc(customers.email))
    ).map((r) => r.email);

  it("match text values holding quotes, backslashes, commas and braces", async () => {
    expect(await emailsOf(anyOf(customers.email, [emails[0]!, emails[2]!]))).toEqual(
      [emails[0], emails[2]].sort(),
    );
    expect(await emailsOf(noneOf(customers.email, [emails[0]!, emails[2]!]))).toEqual([emails[1]]);
  });

  it("match uuids, and an empty list matches nothing or excludes nothing", async () => {
    const ids = (await t.database.db.select({ id: customers.id }).from(customers)).map((r) => r.id);
    expect(await emailsOf(anyOf(customers.id, ids.slice(0, 1)))).toHaveLength(1);
    expect(await emailsOf(anyOf(customers.id, []))).toEqual([]);
    expect(await emailsOf(noneOf(customers.id, []))).toHaveLength(emails.length);
  });
});

describe("tableRows", () => {
  it("maps a raw returning * as drizzle's select maps the same rows", async () => {
    const [customer] = await t.database.db.select().from(customers).limit(1);
    const values = [0, 1].map((i) => ({
      organizationId,
      customerId: customer!.id,
      status: "paid",
      billingReason: "purchase",
      billingKey: `bulk:${i}`,
      subtotalAmount: 1000 + i,
      discountAmount: 0,
      netAmount: 1000 + i,
      taxAmount: 0,
      totalAmount: 1000 + i,
      currency: "usd",
      metadata: { note: `row ${i}`, n: i },
    }));
    const raw = await queryRows<Record<string, unknown>>(
      t.database.db,
      sql`${insertJsonRows(orders, values)} returning *`,
    );
    const mapped = tableRows(orders, raw);
    const selected = await Promise.all(
      mapped.map(
        async (o) => (await t.database.db.select().from(orders).where(eq(orders.id, o.id)))[0],
      ),
    );
    expect(mapped).toEqual(selected);
    expect(mapped.map((o) => o.billingKey)).toEqual(["bulk:0", "bulk:1"]);
    expect(mapped[1]!.createdAt).toBeInstanceOf(Date);
    expect(mapped[1]!.metadata).toEqual({ note: "row 1", n: 1 });
  });
});
