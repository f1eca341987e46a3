// The `reset` proration behavior, through the public API and the sandbox clock. As Polar, it needs
// the organization's reset_proration_behavior_enabled flag (a 422 otherwise, for a plan change, a
// seat change and the organization's default alike).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingSeller,
  enableResetProration,
  monthlyProduct,
  ordersOf,
  seatProduct,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
/** A seller that never turns the flag on. */
let off: BillingSeller;
/** A seller with the flag on. */
let on: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  off = await billingSeller(t);
  on = await billingSeller(t);
  await enableResetProration(t.url, on);
});
afterAll(() => t.stop());

const NOT_ENABLED = "The 'reset' proration behavior is not enabled for this organization.";

const patch = (s: BillingSeller, id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

async function buySeats(s: BillingSeller, productId: string, seats: number) {
  const checkout = await s.call("/v1/checkouts/", { body: { products: [productId], seats } });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const confirmed = await s.call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: `seats-${Math.random().toString(36).slice(2, 8)}@example.com`,
      customer_billing_address: { country: "US" },
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return (await s.call(`/v1/checkouts/${checkout.body.id}`)).body.subscription_id as string;
}

const reasons = async (s: BillingSeller, id: string) =>
  (await ordersOf(s, id)).map((o) => o.billing_reason as string);

describe("without the organization's flag", () => {
  it("a reset plan change is Polar's 422 and changes nothing", async () => {
    const basic = await monthlyProduct(off, "Off basic", 1000);
    const pro = await monthlyProduct(off, "Off pro", 2000);
    const { subscriptionId } = await subscribe(off, basic.id);
    const before = await subscriptionOf(off, subscriptionId);
    const res = await patch(off, subscriptionId, {
      product_id: pro.id,
      proration_behavior: "reset",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.detail).toMatchObject([
      { loc: ["body", "proration_behavior"], msg: NOT_ENABLED, type: "value_error" },
    ]);
    expect(await subscriptionOf(off, subscriptionId)).toEqual(before);
    expect(await reasons(off, subscriptionId)).toEqual(["subscription_create"]);
  });

  it("a reset seat change is Polar's 422 and changes nothing", async () => {
    const id = await buySeats(off, await seatProduct(off.call, "Off seats"), 2);
    const before = await subscriptionOf(off, id);
    const res = await patch(off, id, { seats: 3, proration_behavior: "reset" });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.detail).toMatchObject([
      { loc: ["body", "proration_behavior"], msg: NOT_ENABLED, type: "value_error" },
    ]);
    expect(await subscriptionOf(off, id)).toEqual(before);
    expect(await reasons(off, id)).toEqual(["subscription_create"]);
  });

  it("reset as the organization's default is Polar's 422; the flag allows it", async () => {
    const s = await billingSeller(t);
    const path = `/v1/organizations/${s.organizationId}`;
    const org = (await s.call(path)).body;
    const settings = { ...org.subscription_settings, proration_behavior: "reset" };
    const refused = await s.call(path, {
      method: "PATCH",
      body: { subscription_settings: settings },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.detail).toMatchObject([
      {
        loc: ["body", "subscription_settings", "proration_behavior"],
        msg: NOT_ENABLED,
        type: "value_error",
      },
    ]);
    const unchanged = (await s.call(path)).body;
    expect([unchanged.proration_behavior, unchanged.feature_settings]).toEqual([
      "prorate",
      org.feature_settings,
    ]);

    // The flag and the default in one request, as Polar applies feature settings first.
    const allowed = await s.call(path, {
      method: "PATCH",
      body: {
        feature_settings: { reset_proration_behavior_enabled: true },
        subscription_settings: settings,
      },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect([
      allowed.body.proration_behavior,
      allowed.body.feature_settings.reset_proration_behavior_enabled,
    ]).toEqual(["reset", true]);
    // The flag cannot go off under a reset default.
    const disabled = await s.call(path, {
      method: "PATCH",
      body: { feature_settings: { reset_proration_behavior_enabled: false } },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(422);
    expect(disabled.body.detail[0].loc).toEqual([
      "body",
      "feature_settings",
      "reset_proration_behavior_enabled",
    ]);
    expect((await s.call(path)).body.feature_settings.reset_proration_behavior_enabled).toBe(true);
  });
});
