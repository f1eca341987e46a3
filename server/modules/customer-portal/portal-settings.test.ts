// What the portal and the checkout page say of the seller (Polar's CustomerOrganization and
// CheckoutOrganization) follows the organization's settings, and the portal holds to them: with
// update_plan or update_seats off, the customer's plan or seat change is a 403 in Polar's names
// and the subscription stays as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  type BillingSeller,
  setOrganizationSettings,
  setSubscriptionSettings,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function portalOf(customerId: string) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  return (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(t.url, `/v1/customer-portal/${path}`, { token: session.body.token, ...init });
}

/** The seller as a new checkout's page sees it (Polar's CheckoutOrganization). */
async function checkoutOrganization(productId: string) {
  const checkout = await s.call("/v1/checkouts/", { body: { products: [productId] } });
  const page = await api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}`);
  return page.body.organization;
}

async function sellerOrganization() {
  const org = (await s.call(`/v1/organizations/${s.organizationId}`)).body;
  return (await api(t.url, `/v1/customer-portal/organizations/${org.slug}`)).body.organization;
}

describe("portal settings", () => {
  it("the portal shows the organization's settings and refuses what they switch off", async () => {
    const plans = await Promise.all(
      ["Starter", "Growth"].map((name) =>
        s.polar.products.create({
          name,
          recurringInterval: "month",
          prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
        }),
      ),
    );
    const { subscriptionId, customerId } = await subscribe(s, plans[0]!.id);
    const portal = await portalOf(customerId);

    // Polar's defaults: plan and seat changes offered, prorated.
    expect(await sellerOrganization()).toMatchObject({
      proration_behavior: "prorate",
      allow_customer_updates: true,
      customer_portal_settings: {
        usage: { show: true },
        subscription: { update_seats: true, update_plan: true },
        customer: { allow_email_change: true },
      },
    });
    expect(await checkoutOrganization(plans[1]!.id)).toMatchObject({
      proration_behavior: "prorate",
      allow_customer_updates: true,
    });

    await setOrganizationSettings(t.url, s, "customer_portal_settings", {
      usage: { show: false },
      subscription: { update_seats: false, update_plan: false },
    });
    await setSubscriptionSettings(t.url, s, {
      proration_behavior: "invoice",
      allow_customer_updates: false,
    });
    const shown = {
      proration_behavior: "invoice",
      allow_customer_updates: false,
      customer_portal_settings: {
        usage: { show: false },
        subscription: { update_seats: false, update_plan: false },
      },
    };
    expect(await sellerOrganization()).toMatchObject(shown);
    expect(await checkoutOrganization(plans[1]!.id)).toMatchObject({
      proration_behavior: "invoice",
      allow_customer_updates: false,
    });
    const mine = await portal(`subscriptions/${subscriptionId}`);
    expect(mine.body.product.organization).toMatchObject(shown);

    const plan = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { product_id: plans[1]!.id },
    });
    expect(plan.status).toBe(403);
    expect(plan.body).toEqual({
      error: "UpdateSubscriptionPlanNotAllowed",
      detail: "Updating subscription plan is not allowed.",
    });
    const seats = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { seats: 3 },
    });
    expect(seats.status).toBe(403);
    expect(seats.body.error).toBe("UpdateSubscriptionSeatsNotAllowed");
    const after = await subscriptionOf(s, subscriptionId);
    expect(after.product_id).toBe(plans[0]!.id);
    expect(after.seats ?? null).toBeNull();
  });
});
