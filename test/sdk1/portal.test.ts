// Polar's 1.x SDK (`createPolar`, 2026-10) as a customer's app uses it with a customer session
// token: the portal's customer, orders and their documents, subscriptions, benefit grants, license
// keys, downloadables, meters, members and the session itself.
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { createSeller } from "../helpers/auth.ts";
import { eventually } from "../helpers/grants.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { US_ADDRESS } from "../helpers/addresses.ts";

type Polar = ReturnType<typeof createPolar>;
let t: TestServer;
let seller: Polar;
let portal: Polar;
let organizationSlug: string;
let orderId: string;
let subscriptionId: string;

async function buy(productId: string, email: string) {
  const checkout = await seller.checkouts.create({ products: [productId] });
  await seller.checkouts.clientUpdate(checkout.client_secret, {
    customer_email: email,
    customer_billing_address: US_ADDRESS,
  });
  await seller.checkouts.clientConfirm(checkout.client_secret, {
    confirmation_token_id: "sandbox_token_success",
  });
  return (await seller.orders.list({ checkout_id: checkout.id })).items[0]!;
}

beforeAll(async () => {
  t = await startTestServer();
  const account = await createSeller(t.url, [...SCOPES]);
  organizationSlug = account.organization.slug;
  seller = createPolar({ accessToken: account.token, baseUrl: t.url });
  const keys = await seller.benefits.create({
    type: "license_keys",
    description: "Key",
    properties: { activations: { limit: 2, enable_customer_admin: true } },
  });
  const app = await seller.products.create({
    name: "App",
    prices: [{ amount_type: "fixed", price_amount: 3000, price_currency: "usd" }],
  });
  await seller.products.updateBenefits(app.id, { benefits: [keys.id] });
  const plan = await seller.products.create({
    name: "Plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
  });
  const email = "portal-sdk@example.com";
  const order = await buy(app.id, email);
  orderId = order.id;
  subscriptionId = (await buy(plan.id, email)).subscription_id!;
  const session = await seller.customerSessions.create({ customer_id: order.customer_id });
  portal = createPolar({ accessToken: session.token, baseUrl: t.url });
  await eventually(
    async () => (await portal.customerPortal.licenseKeys.list()).items[0],
    20_000,
    "the license key",
  );
}, 120_000);
afterAll(() => t?.stop());

describe("SDK 1.x: customer portal", () => {
  it("the customer and the session", async () => {
    const me = await portal.customerPortal.customers.get();
    expect(me.email).toBe("portal-sdk@example.com");
    const renamed = await portal.customerPortal.customers.update({ billing_name: "Portal Ltd" });
    expect(renamed.billing_name).toBe("Portal Ltd");
    expect((await portal.customerPortal.customers.listPaymentMethods()).items).toHaveLength(1);
    const session = await portal.customerPortal.customerSession.introspect();
    expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.now());
    const user = await portal.customerPortal.customerSession.getAuthenticatedUser();
    expect(user.customer_id).toBe(me.id);
    const org = await portal.customerPortal.organizations.get(organizationSlug);
    expect(org.organization.slug).toBe(organizationSlug);
  });

  it("orders and their documents", async () => {
    const orders = await portal.customerPortal.orders.list();
    expect(orders.items.map((o) => o.id)).toContain(orderId);
    expect((await portal.customerPortal.orders.get(orderId)).total_amount).toBe(3000);
    const updated = await portal.customerPortal.orders.update(orderId, {
      billing_name: "Portal Ltd",
    });
    expect(updated.billing_name).toBe("Portal Ltd");
    await portal.customerPortal.orders.generateInvoice(orderId);
    const invoice = await eventually(
      async () => portal.customerPortal.orders.invoice(orderId).catch(() => undefined),
      10_000,
      "the invoice",
    );
    expect(invoice.url).toMatch(/^http/);
    expect((await portal.customerPortal.orders.receipt(orderId)).url).toMatch(/^http/);
    const status = await portal.customerPortal.orders.getPaymentStatus(orderId);
    expect(status.status).toBe("succeeded");
  });

  it("subscriptions: list, get, cancel at period end, keep", async () => {
    const listed = await portal.customerPortal.subscriptions.list();
    expect(listed.items.map((s) => s.id)).toEqual([subscriptionId]);
    expect((await portal.customerPortal.subscriptions.get(subscriptionId)).status).toBe("active");
    const canceled = await portal.customerPortal.subscriptions.cancel(subscriptionId);
    expect(canceled.cancel_at_period_end).toBe(true);
    const kept = await portal.customerPortal.subscriptions.update(subscriptionId, {
      cancel_at_period_end: false,
    });
    expect(kept.cancel_at_period_end).toBe(false);
  });

  it("benefit grants, license keys, downloadables, meters and members", async () => {
    const grants = await portal.customerPortal.benefitGrants.list();
    expect(grants.items).toHaveLength(1);
    expect((await portal.customerPortal.benefitGrants.get(grants.items[0]!.id)).id).toBe(
      grants.items[0]!.id,
    );
    const [key] = (await portal.customerPortal.licenseKeys.list()).items;
    const full = await portal.customerPortal.licenseKeys.get(key!.id);
    const activation = await portal.customerPortal.licenseKeys.activate({
      key: full.key,
      organization_id: full.organization_id,
      label: "laptop",
    });
    const valid = await portal.customerPortal.licenseKeys.validate({
      key: full.key,
      organization_id: full.organization_id,
      activation_id: activation.id,
    });
    expect(valid.status).toBe("granted");
    await portal.customerPortal.licenseKeys.deactivate({
      key: full.key,
      organization_id: full.organization_id,
      activation_id: activation.id,
    });
    expect((await portal.customerPortal.downloadables.list()).items).toEqual([]);
    expect((await portal.customerPortal.customerMeters.list()).items).toEqual([]);
    const member = await portal.customerPortal.members.addMember({
      email: "teammate@example.com",
      name: "Teammate",
      role: "member",
    });
    expect((await portal.customerPortal.members.listMembers()).items.map((m) => m.id)).toContain(
      member.id,
    );
    const promoted = await portal.customerPortal.members.updateMember(member.id, {
      role: "billing_manager",
    });
    expect(promoted.role).toBe("billing_manager");
    await portal.customerPortal.members.removeMember(member.id);
    expect(
      (await portal.customerPortal.members.listMembers()).items.map((m) => m.id),
    ).not.toContain(member.id);
  });
});
