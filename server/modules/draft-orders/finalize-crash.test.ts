// A finalize that dies between the processor's charge and its commit, made with the finalize's own
// code and a processor that charges and then throws (or throws before charging). The claim it left
// is settled by a repeated finalize or, once stale, by the reconciler, from the processor's record
// under the same key: exactly one charge, one payment and one order.paid, however many settle it.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BillingSeller, billingSeller, subscribe } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { TestClock } from "../../lib/clock.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { findOrderRow } from "../orders/service.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import { createSandboxProcessor } from "../payments/sandbox-processor.ts";
import { createTaxCalculator } from "../tax/calculator.ts";
import { reconcileDraftOrders } from "./reconcile.ts";
import { type DraftOrderDeps, finalizeOrder } from "./service.ts";
import { markPaid } from "./settle.ts";

const clock = new TestClock();
let t: TestServer;
let s: BillingSeller;
let ctx: AuthContext;
let productId: string;
let customerId: string;

function depsWith(processor: PaymentProcessor): DraftOrderDeps {
  return {
    db: t.server.database.db,
    clock,
    baseUrl: t.config.baseUrl,
    queue: t.server.queue,
    processor,
    tax: createTaxCalculator(t.config.taxRates),
    reconcileAfterSeconds: t.config.payments.reconcileAfterSeconds,
  };
}
let sandbox: PaymentProcessor;
/** The process dies right after the processor charged: nothing after the charge commits. */
let diesAfterCharge: PaymentProcessor;
/** The process dies before the processor heard of the charge. */
let diesBeforeCharge: PaymentProcessor;

beforeAll(async () => {
  t = await startTestServer({ clock, worker: false });
  s = await billingSeller(t);
  ctx = {
    kind: "organization",
    userId: null,
    organizationIds: [s.organizationId],
    scopes: new Set(["orders:write"]),
    tokenId: null,
  };
  sandbox = createSandboxProcessor({ db: t.server.database.db });
  diesAfterCharge = {
    ...sandbox,
    async chargeOffSession(request) {
      await sandbox.chargeOffSession(request);
      throw new Error("killed");
    },
  };
  diesBeforeCharge = {
    ...sandbox,
    async chargeOffSession() {
      throw new Error("killed");
    },
  };
  await s.call(`/v1/organizations/${s.organizationId}`, {
    method: "PATCH",
    body: { feature_settings: { off_session_charges_enabled: true } },
  });
  const product = await s.call("/v1/products/", {
    body: {
      name: "Top-up",
      prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
  const plan = await s.call("/v1/products/", {
    body: {
      name: "Plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    },
  });
  customerId = (await subscribe(s, plan.body.id)).customerId;
}, 120_000);
afterAll(() => t.stop());

async function newDraft(): Promise<string> {
  const res = await s.call("/v1/orders/", {
    body: { customer_id: customerId, product_id: productId },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function state(orderId: string) {
  const q = <T>(query: ReturnType<typeof sql>) =>
    t.server.database.rows<T & Record<string, unknown>>(query);
  const [order] = await q<{
    status: string;
    finalizing_at: Date | null;
    invoice_number: string | null;
  }>(sql`select status, finalizing_at, invoice_number from orders where id = ${orderId}`);
  const charges = await q<{ idempotency_key: string; status: string }>(
    sql`select idempotency_key, status from sandbox_charges where idempotency_key like ${`order_finalize:${orderId}:%`}`,
  );
  const payments = await q<{ status: string }>(
    sql`select status from payments where order_id = ${orderId}`,
  );
  const paidEvents = await q<{ type: string }>(
    sql`select type from webhook_events where type = 'order.paid' and payload->'data'->>'id' = ${orderId}`,
  );
  return { order: order!, charges, payments, paidEvents: paidEvents.length };
}

const stale = () => clock.advance((t.config.payments.reconcileAfterSeconds + 1) * 1000);

describe("a finalize that dies between charge and commit", () => {
  it("is completed by a repeated finalize under the same key: one charge", async () => {
    const id = await newDraft();
    await expect(finalizeOrder(depsWith(diesAfterCharge), ctx, id, {})).rejects.toMatchObject({
      status: 503,
    });
    const atCrash = await state(id);
    expect(atCrash.order.status).toBe("draft");
    expect(atCrash.order.finalizing_at).not.toBeNull();
    expect(atCrash.charges).toEqual([
      { idempotency_key: `order_finalize:${id}:1`, status: "succeeded" },
    ]);

    const again = await s.call(`/v1/orders/${id}/finalize`, { body: {} });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("paid");
    const after = await state(id);
    expect(after.charges).toHaveLength(1);
    expect(after.payments).toEqual([{ status: "succeeded" }]);
    expect(after.paidEvents).toBe(1);
  });

  it("is settled paid by the reconciler once stale, exactly once", async () => {
    const id = await newDraft();
    await expect(finalizeOrder(depsWith(diesAfterCharge), ctx, id, {})).rejects.toThrow();
    const deps = depsWith(sandbox);
    // Not stale yet: a finalize may still be on its way to commit.
    expect((await reconcileDraftOrders(deps)).paid).toBe(0);
    expect((await state(id)).order.status).toBe("draft");
    stale();
    const runs = await Promise.all([reconcileDraftOrders(deps), reconcileDraftOrders(deps)]);
    expect(runs.reduce((n, r) => n + r.paid, 0)).toBe(1);
    expect((await reconcileDraftOrders(deps)).paid).toBe(0);
    const after = await state(id);
    expect(after.order).toMatchObject({ status: "paid", finalizing_at: null });
    expect(after.order.invoice_number).toMatch(/-\d{4}$/);
    expect(after.charges).toHaveLength(1);
    expect(after.payments).toEqual([{ status: "succeeded" }]);
    expect(after.paidEvents).toBe(1);
  });

  it("is released by the reconciler when nothing was charged, and can be finalized again", async () => {
    const id = await newDraft();
    await expect(finalizeOrder(depsWith(diesBeforeCharge), ctx, id, {})).rejects.toThrow();
    stale();
    expect(await reconcileDraftOrders(depsWith(sandbox))).toMatchObject({ released: 1, paid: 0 });
    const released = await state(id);
    expect(released.order).toMatchObject({
      status: "draft",
      finalizing_at: null,
      invoice_number: null,
    });
    expect(released.charges).toEqual([]);

    const paid = await s.call(`/v1/orders/${id}/finalize`, { body: {} });
    expect(paid.status).toBe(200);
    const after = await state(id);
    expect(after.charges).toEqual([
      { idempotency_key: `order_finalize:${id}:2`, status: "succeeded" },
    ]);
    expect(after.paidEvents).toBe(1);
  });

  it("a charge that answers after the reconciler released its attempt still pays the order", async () => {
    const id = await newDraft();
    await expect(finalizeOrder(depsWith(diesBeforeCharge), ctx, id, {})).rejects.toThrow();
    const row = (await findOrderRow(t.server.database.db, scopeOfCaller(ctx), id))!;
    stale();
    expect((await reconcileDraftOrders(depsWith(sandbox))).released).toBe(1);
    // The processor answers only now, for the attempt the reconciler gave up on.
    const paid = await markPaid(depsWith(sandbox), row, {
      processorPaymentId: "sandbox_pay_late",
      card: { brand: "visa", last4: "4242" },
    });
    expect(paid?.status).toBe("paid");
    expect(
      await markPaid(depsWith(sandbox), row, { processorPaymentId: "x", card: null }),
    ).toBeNull();
    expect((await state(id)).paidEvents).toBe(1);
  });

  it("concurrent finalizes of one draft charge once", async () => {
    const id = await newDraft();
    const answers = await Promise.all(
      [1, 2, 3].map(() => s.call(`/v1/orders/${id}/finalize`, { body: {} })),
    );
    expect(answers.map((a) => a.status).every((code) => code === 200 || code === 412)).toBe(true);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    const after = await state(id);
    expect(after.order.status).toBe("paid");
    expect(after.charges).toHaveLength(1);
    expect(after.payments).toHaveLength(1);
    expect(after.paidEvents).toBe(1);
  });
});

describe("a charge the bank wants authenticated", () => {
  it("is a 402 PaymentActionRequired; the order stays a draft and the attempt is recorded", async () => {
    const id = await newDraft();
    const wantsAuthentication: PaymentProcessor = {
      ...sandbox,
      async chargeOffSession() {
        return {
          status: "failed",
          code: "authentication_required",
          message: "Your card was declined. This transaction requires authentication.",
        };
      },
    };
    await expect(finalizeOrder(depsWith(wantsAuthentication), ctx, id, {})).rejects.toMatchObject({
      status: 402,
      error: "PaymentActionRequired",
    });
    const after = await state(id);
    expect(after.order).toMatchObject({
      status: "draft",
      finalizing_at: null,
      invoice_number: null,
    });
    expect(after.payments).toEqual([{ status: "failed" }]);
    const [payment] = await t.server.database.rows<{ decline_reason: string }>(
      sql`select decline_reason from payments where order_id = ${id}`,
    );
    expect(payment!.decline_reason).toBe("authentication_required");
  });
});
