// Polar's 1.x SDK (`createPolar`, 2026-10) against a real till over the selling resources: the
// checkout a buyer pays through the client methods, then orders (documents, export, a draft charged
// off-session), refunds, payments, disputes, subscriptions, customers with their state and payment
// methods, customer sessions and meters, license keys and benefit grants.
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { api, createSeller } from "../helpers/auth.ts";
import { eventually } from "../helpers/grants.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { US_ADDRESS } from "../helpers/addresses.ts";

type Polar = ReturnType<typeof createPolar>;
let t: TestServer;
let polar: Polar;
let organizationId: string;
let token: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [...SCOPES]);
  organizationId = seller.organization.id;
  token = seller.token;
  polar = createPolar({ accessToken: seller.token, baseUrl: t.url });
});
afterAll(() => t?.stop());

/** A purchase through the checkout's client methods, as a buyer's page makes it. */
async function purchase(productId: string, email: string) {
  const checkout = await polar.checkouts.create({ products: [productId] });
  const shown = await polar.checkouts.clientGet(checkout.client_secret);
  expect(shown.id).toBe(checkout.id);
  await polar.checkouts.clientUpdate(checkout.client_secret, {
    customer_email: email,
    customer_billing_address: US_ADDRESS,
  });
  const confirmed = await polar.checkouts.clientConfirm(checkout.client_secret, {
    confirmation_token_id: "sandbox_token_success",
  });
  expect(confirmed.status).not.toBe("open");
  const paid = await eventually(
    async () => (await polar.orders.list({ checkout_id: checkout.id })).items[0],
    10_000,
    "the order",
  );
  return { checkout, order: paid };
}

describe("SDK 1.x: sales", () => {
  it("checkouts, orders and their documents, refunds, payments, disputes", async () => {
    const product = await polar.products.create({
      name: "Book",
      prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
    });
    const { checkout, order } = await purchase(product.id, "reader@example.com");
    expect((await polar.checkouts.get(checkout.id)).status).toBe("succeeded");
    expect((await polar.checkouts.list({ product_id: product.id })).items).toHaveLength(1);
    const open = await polar.checkouts.create({ products: [product.id] });
    const updated = await polar.checkouts.update(open.id, { customer_email: "later@example.com" });
    expect(updated.customer_email).toBe("later@example.com");

    expect(order).toMatchObject({ status: "paid", total_amount: 2000, billing_reason: "purchase" });
    expect((await polar.orders.get(order.id)).id).toBe(order.id);
    const named = await polar.orders.update(order.id, { billing_name: "Reader Ltd" });
    expect(named.billing_name).toBe("Reader Ltd");
    await polar.orders.generateInvoice(order.id);
    const invoice = await eventually(
      async () => polar.orders.invoice(order.id).catch(() => undefined),
      10_000,
      "the invoice",
    );
    expect(invoice.url).toMatch(/^http/);
    expect((await polar.orders.receipt(order.id)).url).toMatch(/^http/);
    const csv = await polar.orders.export({ product_id: product.id });
    expect(csv.split("\n")[0]).toContain("Email");
    expect(csv).toContain("reader@example.com");

    const refund = await polar.refunds.create({ order_id: order.id, reason: "other", amount: 500 });
    expect(refund).toMatchObject({ amount: 500, order_id: order.id });
    expect((await polar.refunds.list({ order_id: order.id })).items.map((r) => r.id)).toEqual([
      refund.id,
    ]);
    const payments = await polar.payments.list({ order_id: order.id });
    expect(payments.items).toHaveLength(1);
    expect((await polar.payments.get(payments.items[0]!.id)).amount).toBe(2000);
    expect((await polar.disputes.list({ order_id: order.id })).items).toEqual([]);
  });

  it("a draft order charged off-session with the customer's saved card", async () => {
    // Polar keeps this switch to its staff; a self-hosted organization sets it itself.
    const enabled = await api(t.url, `/v1/organizations/${organizationId}`, {
      method: "PATCH",
      token,
      body: { feature_settings: { off_session_charges_enabled: true } },
    });
    expect(enabled.status).toBe(200);
    const plan = await polar.products.create({
      name: "Plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    });
    const { order: first } = await purchase(plan.id, "saved-card@example.com");
    const extra = await polar.products.create({
      name: "Setup fee",
      prices: [{ amount_type: "fixed", price_amount: 5000, price_currency: "usd" }],
    });
    const draft = await polar.orders.create({
      customer_id: first.customer_id,
      product_id: extra.id,
      currency: "usd",
      amount: 5000,
    });
    expect(draft.status).toBe("draft");
    const card = (await polar.customers.listPaymentMethods(first.customer_id)).items[0]!;
    const paid = await polar.orders.finalize(draft.id, { payment_method_id: card.id });
    expect(paid).toMatchObject({ status: "paid", total_amount: 5000 });
  });

  it("subscriptions: list, get, update, export, create a free one, revoke", async () => {
    const plan = await polar.products.create({
      name: "Monthly",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    });
    const { order } = await purchase(plan.id, "subscriber@example.com");
    const subscription = await polar.subscriptions.get(order.subscription_id!);
    expect(subscription).toMatchObject({ status: "active", product_id: plan.id });
    expect(
      (await polar.subscriptions.list({ product_id: plan.id })).items.map((s) => s.id),
    ).toEqual([subscription.id]);
    const canceled = await polar.subscriptions.update(subscription.id, {
      cancel_at_period_end: true,
    });
    expect(canceled.cancel_at_period_end).toBe(true);
    expect(await polar.subscriptions.export({})).toContain("subscriber@example.com");
    const free = await polar.products.create({
      name: "Free tier",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 0, price_currency: "usd" }],
    });
    const created = await polar.subscriptions.create({
      product_id: free.id,
      customer_id: order.customer_id,
    });
    expect(created).toMatchObject({ status: "active", amount: 0 });
    const revoked = await polar.subscriptions.revoke(created.id);
    expect(revoked.status).toBe("canceled");
  });

  it("customers: create, get, list, update, external ids, state, payment methods, export, delete", async () => {
    const customer = await polar.customers.create({
      email: "ada@example.com",
      name: "Ada",
      external_id: "user_ada",
    });
    expect((await polar.customers.get(customer.id)).email).toBe("ada@example.com");
    expect((await polar.customers.getExternal("user_ada")).id).toBe(customer.id);
    expect((await polar.customers.list({ query: "ada@" })).items.map((c) => c.id)).toEqual([
      customer.id,
    ]);
    expect((await polar.customers.update(customer.id, { name: "Ada L." })).name).toBe("Ada L.");
    expect((await polar.customers.updateExternal("user_ada", { name: "Ada" })).name).toBe("Ada");
    const state = await polar.customers.getState(customer.id);
    expect(state).toMatchObject({ id: customer.id, active_subscriptions: [] });
    expect((await polar.customers.getStateExternal("user_ada")).id).toBe(customer.id);
    expect((await polar.customers.listPaymentMethods(customer.id)).items).toEqual([]);
    expect((await polar.customers.listPaymentMethodsExternal("user_ada")).items).toEqual([]);
    expect(await polar.customers.export({})).toContain("ada@example.com");
    const session = await polar.customerSessions.create({ customer_id: customer.id });
    expect(session.token).toBeTruthy();
    expect(session.customer_id).toBe(customer.id);
    await polar.customers.deleteExternal("user_ada");
    await expect(polar.customers.get(customer.id)).rejects.toMatchObject({ statusCode: 404 });
    const other = await polar.customers.create({ email: "bob@example.com" });
    await polar.customers.delete(other.id);
    await expect(polar.customers.get(other.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("license keys, benefit grants and customer meters of a purchase", async () => {
    const meter = await polar.meters.create({
      name: "Tokens",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    const keys = await polar.benefits.create({
      type: "license_keys",
      description: "Key",
      properties: { activations: { limit: 2, enable_customer_admin: true } },
    });
    const credits = await polar.benefits.create({
      type: "meter_credit",
      description: "Tokens",
      properties: { meter_id: meter.id, units: 50, rollover: false },
    });
    const product = await polar.products.create({
      name: "App",
      prices: [{ amount_type: "fixed", price_amount: 3000, price_currency: "usd" }],
    });
    await polar.products.updateBenefits(product.id, { benefits: [keys.id, credits.id] });
    const { order } = await purchase(product.id, "licensee@example.com");
    const grants = await eventually(
      async () => {
        const list = await polar.benefitGrants.list({ customer_id: order.customer_id });
        return list.items.filter((g) => g.is_granted).length === 2 ? list.items : undefined;
      },
      20_000,
      "both grants",
    );
    expect(grants.map((g) => g.benefit_id).sort()).toEqual([keys.id, credits.id].sort());

    const listed = await polar.licenseKeys.list({ benefit_id: keys.id });
    expect(listed.items).toHaveLength(1);
    const key = await polar.licenseKeys.get(listed.items[0]!.id);
    const activation = await polar.licenseKeys.activate({
      key: key.key,
      organization_id: organizationId,
      label: "laptop",
    });
    expect((await polar.licenseKeys.getActivation(key.id, activation.id)).label).toBe("laptop");
    const valid = await polar.licenseKeys.validate({
      key: key.key,
      organization_id: organizationId,
      activation_id: activation.id,
    });
    expect(valid.status).toBe("granted");
    await polar.licenseKeys.deactivate({
      key: key.key,
      organization_id: organizationId,
      activation_id: activation.id,
    });
    expect((await polar.licenseKeys.update(key.id, { usage: 3 })).usage).toBe(3);
    const rotated = await polar.licenseKeys.rotate(key.id);
    expect(rotated).toMatchObject({ id: key.id, usage: 3, status: "granted" });
    expect(rotated.key).not.toBe(key.key);
    await expect(
      polar.licenseKeys.validate({ key: key.key, organization_id: organizationId }),
    ).rejects.toMatchObject({ statusCode: 404 });
    const fresh = await polar.licenseKeys.validate({
      key: rotated.key,
      organization_id: organizationId,
    });
    expect(fresh.id).toBe(key.id);
    const grant = (await polar.benefitGrants.list({ customer_id: order.customer_id })).items.find(
      (g) => g.benefit_id === keys.id,
    )!;
    expect((grant.properties as { display_key?: string }).display_key).toBe(rotated.display_key);
    await polar.licenseKeys.update(key.id, { status: "revoked" });
    await expect(polar.licenseKeys.rotate(key.id)).rejects.toMatchObject({ statusCode: 400 });

    const meters = await polar.customerMeters.list({ customer_id: order.customer_id });
    expect(meters.items).toHaveLength(1);
    const one = await polar.customerMeters.get(meters.items[0]!.id);
    expect(one).toMatchObject({ meter_id: meter.id, credited_units: 50 });
  });
});
