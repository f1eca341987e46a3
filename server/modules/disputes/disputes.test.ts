// Disputes from Stripe's webhooks against the local Stripe API server: a chargeback opened by the
// bank appears in /v1/disputes (read by Polar's own client), moves with Stripe's events however
// they are repeated or reordered, and when lost revokes the purchase's benefits once (a one-time
// order's grants; a subscription ends now) with order.updated; won keeps them. Accepting an open
// dispute concedes it at Stripe. Another organization sees none of it.
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { startStripeTill, type StripeTill } from "../../../test/helpers/stripe-till.ts";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";

let s: StripeTill;
let polar: Polar;
let benefitId: string;

beforeAll(async () => {
  s = await startStripeTill();
  polar = s.polar;
  benefitId = (
    await polar.benefits.create({
      type: "custom",
      description: "Private chat",
      properties: { note: "Welcome" },
    })
  ).id;
});
afterAll(() => s?.stop());

/** A paid purchase with the benefit; returns its order and the Stripe PaymentIntent. */
async function purchase(recurring: boolean, email: string) {
  const product = await polar.products.create({
    name: recurring ? "Monthly club" : "Lifetime club",
    ...(recurring ? { recurringInterval: "month" as const } : {}),
    prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [benefitId] },
  });
  const c = await polar.checkouts.create({
    products: [product.id],
    customerEmail: email,
    customerBillingAddress: US_ADDRESS_SDK,
  });
  const r = await s.confirm(c.clientSecret, await s.token("pm_card_visa"));
  expect(r.status).toBe(200);
  await s.stripe.idle();
  const [order] = await s.orders(c.id);
  expect(order).toBeDefined();
  return { orderId: order!.id, pi: order!.processor_payment_id };
}

async function grantActions(orderId: string) {
  return (
    await s.t.server.database.rows<{ pending_action: string | null }>(
      sql`select pending_action from benefit_grants where order_id = ${orderId}`,
    )
  ).map((r) => r.pending_action);
}

async function eventsOf(type: string, id: string) {
  return s.t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from webhook_events where type = ${type} and payload->'data'->>'id' = ${id}`,
  );
}

const api = (path: string, init: RequestInit = {}, token = s.accessToken) =>
  fetch(`${s.t.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });

describe("disputes", () => {
  it("a lost chargeback of a one-time order revokes its benefits once, with order.updated", async () => {
    const { orderId, pi } = await purchase(false, "lost@example.com");
    expect(await grantActions(orderId)).toEqual(["grant"]);
    const dp = s.stripe.disputes.open(pi, { reason: "fraudulent" });
    await s.stripe.idle();
    const list = await polar.disputes.list({ orderId });
    expect(list.result.items).toHaveLength(1);
    const d = list.result.items[0]!;
    expect(d).toMatchObject({
      status: "needs_response",
      resolved: false,
      closed: false,
      amount: 2000,
      taxAmount: 0,
      currency: "usd",
      orderId,
    });
    expect((await polar.disputes.get({ id: d.id })).id).toBe(d.id);
    // The 2026-10 fields Polar's 0.47 client does not know yet, on the wire.
    const wire = await (await api(`/v1/disputes/${d.id}`)).json();
    expect(wire).toMatchObject({
      reason: "fraudulent",
      past_due: false,
      case_id: null,
      customer: { email: "lost@example.com", organization_id: s.organizationId },
    });
    expect(Date.parse(wire.evidence_due_by)).toBeGreaterThan(Date.now());
    expect(await grantActions(orderId)).toEqual(["grant"]);

    const updatedBefore = (await eventsOf("order.updated", orderId))[0]!.n;
    const closed = s.stripe.disputes.move(dp.id, "lost");
    await s.stripe.idle();
    const after = await polar.disputes.get({ id: d.id });
    expect(after).toMatchObject({ status: "lost", resolved: true, closed: true });
    expect(await grantActions(orderId)).toEqual(["revoke"]);
    expect((await eventsOf("order.updated", orderId))[0]!.n).toBe(updatedBefore + 1);

    // Stripe repeats and reorders: the created event again, the closed one again.
    const events = s.stripe.state.events.filter(
      (e) => (e.data.object as { id?: string }).id === closed.id,
    );
    for (const e of [...events].reverse()) expect(await s.stripe.deliver(e)).toBe(200);
    expect((await polar.disputes.get({ id: d.id })).status).toBe("lost");
    expect((await eventsOf("order.updated", orderId))[0]!.n).toBe(updatedBefore + 1);
    const [n] = await s.t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from disputes where processor_dispute_id = ${dp.id}`,
    );
    expect(n!.n).toBe(1);
  });

  it("a won chargeback keeps the benefits", async () => {
    const { orderId, pi } = await purchase(false, "won@example.com");
    const dp = s.stripe.disputes.open(pi, { reason: "product_not_received" });
    await s.stripe.idle();
    s.stripe.disputes.move(dp.id, "under_review");
    await s.stripe.idle();
    const [d] = (await polar.disputes.list({ orderId, status: ["under_review"] })).result.items;
    expect(d?.status).toBe("under_review");
    s.stripe.disputes.move(dp.id, "won");
    await s.stripe.idle();
    expect((await polar.disputes.get({ id: d!.id })).status).toBe("won");
    expect(await grantActions(orderId)).toEqual(["grant"]);
  });

  it("accepting an open dispute concedes it at Stripe and ends the subscription now", async () => {
    const { orderId, pi } = await purchase(true, "accept@example.com");
    const dp = s.stripe.disputes.open(pi);
    await s.stripe.idle();
    const [d] = (await polar.disputes.list({ orderId })).result.items;
    const customerId = (await (await api(`/v1/disputes/${d!.id}`)).json()).customer.id;
    const accepted = await api(`/v1/disputes/${d!.id}/accept`, { method: "POST" });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ status: "lost", closed: true, resolved: true });
    expect(s.stripe.disputes.get(dp.id).status).toBe("lost");
    await s.stripe.idle();
    const [sub] = (await polar.subscriptions.list({ customerId })).result.items;
    expect(sub).toMatchObject({ status: "canceled" });
    expect(sub!.endedAt).toBeInstanceOf(Date);
    expect(await grantActions(orderId)).toEqual(["revoke"]);
    expect((await eventsOf("subscription.revoked", sub!.id))[0]!.n).toBe(1);

    const again = await api(`/v1/disputes/${d!.id}/accept`, { method: "POST" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "DisputeNotOpenError" });
  });

  it("bad ids, scopes and another organization", async () => {
    const { orderId, pi } = await purchase(false, "tenant@example.com");
    s.stripe.disputes.open(pi);
    await s.stripe.idle();
    const [d] = (await polar.disputes.list({ orderId })).result.items;
    expect((await api("/v1/disputes/not-a-uuid")).status).toBe(422);
    expect((await api("/v1/disputes/?status=closed")).status).toBe(422);
    const other = await createSeller(s.t.url, ["disputes:write"]);
    const theirs = await api(`/v1/disputes/${d!.id}`, {}, other.token);
    expect(theirs.status).toBe(404);
    const accept = await api(`/v1/disputes/${d!.id}/accept`, { method: "POST" }, other.token);
    expect(accept.status).toBe(404);
    const list = await api(`/v1/disputes/?organization_id=${s.organizationId}`, {}, other.token);
    expect((await list.json()).items).toEqual([]);
    const readOnly = await createSeller(s.t.url, ["orders:read"]);
    expect((await api("/v1/disputes/", {}, readOnly.token)).status).toBe(403);
    expect((await polar.disputes.get({ id: d!.id })).status).toBe("needs_response");
  });
});
