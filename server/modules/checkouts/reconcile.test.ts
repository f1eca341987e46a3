// The reconciler resolves sessions a crash left confirmed. The states a crash leaves are made with
// the confirm's own steps, stopped where the process would have died: claimed only, or claimed and
// charged. After PAYMENTS_RECONCILE_AFTER_SECONDS the processor is asked: a charged session gets its
// order (once, however many appliers race), the others are open again with the discount released.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import { createSandboxProcessor } from "../payments/sandbox-processor.ts";
import { createTaxCalculator } from "../tax/calculator.ts";
import { claimCheckout } from "./confirm.ts";
import { fulfil } from "./fulfil.ts";
import { paymentKey, takePayment } from "./payment.ts";
import { reconcileCheckouts } from "./reconcile.ts";
import * as repo from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

const clock = new TestClock();
let t: TestServer;
let polar: Polar;
let deps: CheckoutDeps;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer({ clock, worker: false });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "discounts:write",
  ]);
  organizationId = seller.organization.id;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  deps = {
    db: t.server.database.db,
    clock,
    config: t.config,
    secretBox: createSecretBox(t.config.authSecret),
    tax: createTaxCalculator(t.config.taxRates),
    processor: createSandboxProcessor({ db: t.server.database.db }),
    queue: t.server.queue,
  };
});
afterAll(() => t.stop());

const STALE_MS = (120 + 1) * 1000;

async function session(discountId?: string) {
  const product = await polar.products.create({
    name: "Pro",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
  const checkout = await polar.checkouts.create({
    products: [product.id],
    customerEmail: `c${Math.random().toString(36).slice(2)}@example.com`,
    customerBillingAddress: { country: "DE" },
    ...(discountId ? { discountId } : {}),
  });
  return (await repo.findCheckout(deps.db, scopeOfResource({ organizationId }), checkout.id))!;
}

/** The confirm's own first steps, stopped where a crash would stop them. */
async function crashAfter(step: "claim" | "charge", token = "sandbox_token_success") {
  const row = await session();
  const claimed = await inTransaction(deps.db, (tx) => claimCheckout(deps, tx, row, null));
  if (step === "charge")
    await takePayment(deps, claimed, { tokenId: token, recurring: true, description: "Pro" });
  return claimed;
}

async function ordersOf(checkoutId: string) {
  return t.server.database.rows<{ processor_payment_id: string | null }>(
    sql`select processor_payment_id from orders where checkout_id = ${checkoutId}`,
  );
}

async function statusOf(id: string) {
  return (await repo.findCheckout(deps.db, scopeOfResource({ organizationId }), id))!;
}

describe("checkout reconciler", () => {
  it("leaves a session confirmed less than the threshold alone", async () => {
    const claimed = await crashAfter("charge");
    clock.advance(60_000);
    await reconcileCheckouts(deps);
    expect((await statusOf(claimed.id)).status).toBe("confirmed");
    clock.advance(STALE_MS);
    expect(await reconcileCheckouts(deps)).toMatchObject({ fulfilled: 1 });
  });

  it("a session charged but never fulfilled gets exactly one order with the payment and the saved card", async () => {
    const claimed = await crashAfter("charge");
    clock.advance(STALE_MS);
    const result = await reconcileCheckouts(deps);
    expect(result.fulfilled).toBeGreaterThanOrEqual(1);
    const row = await statusOf(claimed.id);
    expect(row.status).toBe("succeeded");
    const lookup = await deps.processor.lookupPayment(paymentKey(claimed));
    if (lookup.status !== "succeeded") throw new Error(`lookup ${lookup.status}`);
    expect(await ordersOf(claimed.id)).toEqual([
      { processor_payment_id: lookup.processorPaymentId },
    ]);
    expect(row).toMatchObject({ cardLast4: "4242", processorPaymentId: lookup.processorPaymentId });
    const [pm] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from payment_methods where customer_id = ${row.customerId}`,
    );
    expect(pm!.n).toBe(1);
    // A second run finds nothing left to do.
    await reconcileCheckouts(deps);
    expect(await ordersOf(claimed.id)).toHaveLength(1);
  });

  it("a session claimed but never charged is open again, its discount redemption given back, and can be paid", async () => {
    const discount = await polar.discounts.create({
      type: "percentage",
      name: "Once",
      code: `ONCE${Math.random().toString(36).slice(2, 8)}`.toUpperCase(),
      duration: "once",
      basisPoints: 1000,
      maxRedemptions: 1,
      organizationId,
    });
    const row = await session(discount.id);
    const claimed = await inTransaction(deps.db, (tx) => claimCheckout(deps, tx, row, null));
    expect(claimed.discountRedeemed).toBe(true);
    expect((await polar.discounts.get({ id: discount.id })).redemptionsCount).toBe(1);
    clock.advance(STALE_MS);
    expect((await reconcileCheckouts(deps)).reopened).toBeGreaterThanOrEqual(1);
    const reopened = await statusOf(claimed.id);
    expect(reopened).toMatchObject({ status: "open", discountRedeemed: false });
    expect(reopened.paymentError).toBe("The payment was not completed. Please try again.");
    expect((await polar.discounts.get({ id: discount.id })).redemptionsCount).toBe(0);
    expect(await ordersOf(claimed.id)).toHaveLength(0);
    // The customer pays again: a new attempt, a new idempotency key, one order.
    const secret = deps.secretBox.open(reopened.clientSecretEnc);
    const paid = await polar.checkouts.clientConfirm({
      clientSecret: secret,
      checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
    });
    expect(paid.status).toBe("confirmed");
    expect((await statusOf(claimed.id)).status).toBe("succeeded");
    expect(await ordersOf(claimed.id)).toHaveLength(1);
  });

  it("a session whose charge was declined is open again with the decline", async () => {
    const claimed = await crashAfter("charge", "sandbox_token_declined");
    clock.advance(STALE_MS);
    await reconcileCheckouts(deps);
    expect(await statusOf(claimed.id)).toMatchObject({
      status: "open",
      paymentError: "Your card was declined.",
    });
  });

  it("the reconciler twice and the confirm's own fulfilment racing make exactly one order", async () => {
    const claimed = await crashAfter("charge");
    clock.advance(STALE_MS);
    const lookup = await deps.processor.lookupPayment(paymentKey(claimed));
    if (lookup.status !== "succeeded") throw new Error("not charged");
    const outcomes = await Promise.all([
      reconcileCheckouts(deps),
      fulfil(deps, claimed, {
        processorPaymentId: lookup.processorPaymentId,
        card: lookup.card,
        paymentMethod: lookup.paymentMethod,
      }),
      reconcileCheckouts(deps),
      fulfil(deps, claimed, {
        processorPaymentId: lookup.processorPaymentId,
        card: lookup.card,
        paymentMethod: lookup.paymentMethod,
      }),
    ]);
    const [first, direct, second, again] = outcomes;
    // Earlier sessions are all settled, so this one is the only work: exactly one applier won.
    expect(
      first.fulfilled + second.fulfilled + (direct === null ? 0 : 1) + (again === null ? 0 : 1),
    ).toBe(1);
    expect(await ordersOf(claimed.id)).toHaveLength(1);
    const [events] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_events where type = 'order.created' and payload->'data'->>'checkout_id' = ${claimed.id}`,
    );
    expect(events!.n).toBe(1);
  });
});
