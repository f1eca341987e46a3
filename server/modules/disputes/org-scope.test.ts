// Tenancy by type at run time: a dispute read under one organization's scope never returns another
// organization's dispute, by id or in a list.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let disputeId: string;
const orderId = randomUUID();
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  const customer = await polarClient(t, a.token).customers.create({ email: "d@example.com" });
  const [payment] = await t.server.database.rows<{ id: string }>(
    sql`insert into payments (organization_id, customer_id, order_id, idempotency_key, processor, status, amount, currency)
        values (${a.organization.id}, ${customer.id}, ${orderId}, ${`dispute-${orderId}`}, 'sandbox', 'succeeded', 500, 'usd')
        returning id`,
  );
  await repo.insertDispute(t.server.database.db, {
    organizationId: a.organization.id,
    customerId: customer.id,
    orderId,
    paymentId: payment!.id,
    processor: "sandbox",
    processorDisputeId: `dp_${orderId}`,
    status: "needs_response",
    amount: 500,
    taxAmount: 0,
    currency: "usd",
  });
  const list = await repo.listDisputes(
    t.server.database.db,
    { scope: scopeOfSeller(a) },
    [],
    10,
    0,
  );
  disputeId = list.rows[0]!.id;
});
afterAll(() => t?.stop());

describe("OrgScope on disputes reads", () => {
  it("returns A's dispute under A's scope only, by id and in lists", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findDispute(db, scopeA, disputeId))?.id).toBe(disputeId);
    expect(await repo.findDispute(db, scopeB, disputeId)).toBeNull();
    const byOrder = { orderIds: [orderId] };
    const listA = await repo.listDisputes(db, { scope: scopeA, ...byOrder }, [], 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([disputeId]);
    const listB = await repo.listDisputes(db, { scope: scopeB, ...byOrder }, [], 10, 0);
    expect(listB).toEqual({ rows: [], total: 0 });
    const onlyB = scopeOfCaller(callerOf([b.organization.id]), a.organization.id);
    expect(await repo.findDispute(db, onlyB, disputeId)).toBeNull();
  });
});
