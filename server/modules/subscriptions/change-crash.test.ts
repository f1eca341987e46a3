// An `invoice` plan change that dies between the processor's charge and its commit, made with the
// change's own code and a processor that charges and then throws (or throws before charging), and
// one whose processor answers only after the reconciler gave up on it. The claim each leaves is
// resolved by the reconciler once stale: what was charged is refunded once, the subscription stays
// on its plan, and no order is made for the change that never happened.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BillingSeller,
  billingDepsOn,
  billingSeller,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { TestClock } from "../../lib/clock.ts";
import type { PaymentProcessor, RefundRequest } from "../payments/processor.ts";
import { createSandboxProcessor } from "../payments/sandbox-processor.ts";
import { abandonStaleChangeCharges } from "./change-charge-repository.ts";
import { reconcileChangeCharges } from "./change-reconcile.ts";
import { updateSubscription } from "./update.ts";

const clock = new TestClock();
let t: TestServer;
let s: BillingSeller;
let ctx: AuthContext;
let basic: string;
let pro: string;
let sandbox: PaymentProcessor;
const refunds: RefundRequest[] = [];

beforeAll(async () => {
  t = await startTestServer({ clock, worker: false });
  s = await billingSeller(t);
  ctx = {
    kind: "organization",
    userId: null,
    organizationIds: [s.organizationId],
    scopes: new Set(["subscriptions:write"]),
    tokenId: null,
  };
  const real = createSandboxProcessor({ db: t.server.database.db });
  sandbox = {
    ...real,
    async refund(request) {
      refunds.push(request);
      return real.refund(request);
    },
  };
  basic = (await monthlyProduct(s, "Basic", 1000)).id;
  pro = (await monthlyProduct(s, "Pro", 3000)).id;
}, 120_000);
afterAll(() => t.stop());

/** The sandbox with one charge at a time, each through `chargeOffSession` (the wrappers' own). */
function depsWith(processor: PaymentProcessor) {
  const { chargeOffSessionMany: _many, ...single } = processor;
  return { ...billingDepsOn(t, t.server.database.db), clock, processor: single };
}
const reconcile = () =>
  reconcileChangeCharges({
    db: t.server.database.db,
    clock,
    processor: sandbox,
    reconcileAfterSeconds: t.config.payments.reconcileAfterSeconds,
  });
const stale = () => clock.advance((t.config.payments.reconcileAfterSeconds + 1) * 1000);
const upgrade = (processor: PaymentProcessor, id: string) =>
  updateSubscription(depsWith(processor), ctx, id, {
    product_id: pro,
    proration_behavior: "invoice",
  });

async function state(subscriptionId: string) {
  const q = <T>(query: ReturnType<typeof sql>) =>
    t.server.database.rows<T & Record<string, unknown>>(query);
  const claims = await q<{ abandoned: boolean }>(
    sql`select abandoned_at is not null as abandoned from change_charges where subscription_id = ${subscriptionId}`,
  );
  const charges = await q<{ status: string; amount: number }>(
    sql`select status, amount::int as amount from sandbox_charges where idempotency_key like ${`update:${subscriptionId}:%`}`,
  );
  const payments = await q<{ status: string; decline_reason: string | null; order_id: string }>(
    sql`select status, decline_reason, order_id from payments where idempotency_key like ${`update:${subscriptionId}:%`}`,
  );
  const sub = await subscriptionOf(s, subscriptionId);
  const updates = (await ordersOf(s, subscriptionId)).filter(
    (o) => o.billing_reason === "subscription_update",
  );
  return { claims, charges, payments, productId: sub.product_id, updates: updates.length };
}

describe("an invoice change that dies between charge and commit", () => {
  it("leaves a claim that the reconciler refunds once, and the plan unchanged", async () => {
    const { subscriptionId } = await subscribe(s, basic);
    const diesAfterCharge: PaymentProcessor = {
      ...sandbox,
      async chargeOffSession(request) {
        await sandbox.chargeOffSession(request);
        throw new Error("killed");
      },
    };
    refunds.length = 0;
    await expect(upgrade(diesAfterCharge, subscriptionId)).rejects.toMatchObject({ status: 503 });
    const atCrash = await state(subscriptionId);
    expect(atCrash.claims).toEqual([{ abandoned: false }]);
    expect(atCrash.charges).toHaveLength(1);
    expect(atCrash.charges[0]!.status).toBe("succeeded");
    expect(atCrash.productId).toBe(basic);

    // Not stale yet: the change may still be on its way to commit.
    expect((await reconcile()).refunded).toBe(0);
    stale();
    expect(await reconcile()).toMatchObject({ refunded: 1 });
    expect(await reconcile()).toMatchObject({ refunded: 0, pending: 0 });
    const after = await state(subscriptionId);
    expect(after.claims).toEqual([]);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.amount).toBe(atCrash.charges[0]!.amount);
    expect(after.payments).toEqual([
      { status: "failed", decline_reason: "refunded", order_id: null },
    ]);
    expect(after.productId).toBe(basic);
    expect(after.updates).toBe(0);

    // The customer asks again: a new charge, and the change made.
    const again = await upgrade(sandbox, subscriptionId);
    expect(again.product_id).toBe(pro);
    const done = await state(subscriptionId);
    expect(done.claims).toEqual([]);
    expect(done.charges).toHaveLength(2);
    expect(done.updates).toBe(1);
  });

  it("drops the claim of a charge the processor never heard of", async () => {
    const { subscriptionId } = await subscribe(s, basic);
    const diesBeforeCharge: PaymentProcessor = {
      ...sandbox,
      async chargeOffSession() {
        throw new Error("killed");
      },
    };
    refunds.length = 0;
    await expect(upgrade(diesBeforeCharge, subscriptionId)).rejects.toMatchObject({ status: 503 });
    stale();
    expect(await reconcile()).toMatchObject({ dropped: 1, refunded: 0 });
    const after = await state(subscriptionId);
    expect(after).toMatchObject({ claims: [], charges: [], payments: [], productId: basic });
    expect(refunds).toHaveLength(0);
  });

  it("does not commit a change whose claim the reconciler took over first", async () => {
    const { subscriptionId } = await subscribe(s, basic);
    // The processor answers after the claim went stale and a reconciler took it over, its refund
    // still on the way.
    const answersLate: PaymentProcessor = {
      ...sandbox,
      async chargeOffSession(request) {
        const result = await sandbox.chargeOffSession(request);
        stale();
        const cutoff = new Date(
          clock.now().getTime() - t.config.payments.reconcileAfterSeconds * 1000,
        );
        await abandonStaleChangeCharges(t.server.database.db, cutoff, 100);
        return result;
      },
    };
    refunds.length = 0;
    await expect(upgrade(answersLate, subscriptionId)).rejects.toMatchObject({ status: 503 });
    expect((await state(subscriptionId)).claims).toEqual([{ abandoned: true }]);
    expect(await reconcile()).toMatchObject({ refunded: 1 });
    const after = await state(subscriptionId);
    expect(after.claims).toEqual([]);
    expect(refunds).toHaveLength(1);
    expect(after.productId).toBe(basic);
    expect(after.updates).toBe(0);
    expect(after.payments).toEqual([
      { status: "failed", decline_reason: "refunded", order_id: null },
    ]);
  });

  it("leaves no claim behind a change that was declined or committed", async () => {
    const { subscriptionId } = await subscribe(s, basic);
    const declines: PaymentProcessor = {
      ...sandbox,
      async chargeOffSession() {
        return { status: "failed", code: "card_declined", message: "Your card was declined." };
      },
    };
    await expect(upgrade(declines, subscriptionId)).rejects.toMatchObject({ status: 402 });
    expect((await state(subscriptionId)).claims).toEqual([]);
    expect((await upgrade(sandbox, subscriptionId)).product_id).toBe(pro);
    expect(await state(subscriptionId)).toMatchObject({ claims: [], updates: 1 });
  });
});
