// Each step of a subscription's life reaches the seller's endpoint signed and in order: purchase,
// renewal, cancellation at period end, and the end of the period.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let s: BillingSeller;
let receiver: Receiver;
let secret = "";

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  receiver = await startReceiver({ secretFor: () => secret });
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

const TYPES = [
  "order.created",
  "order.paid",
  "subscription.created",
  "subscription.active",
  "subscription.updated",
  "subscription.cycled",
  "subscription.canceled",
  "subscription.revoked",
];

describe("webhooks of the billing cycle", () => {
  it("arrive signed, in order: purchase, renewal, cancel at period end, end", async () => {
    const endpoint = await s.call("/v1/webhooks/endpoints", {
      body: { url: `${receiver.url}/hooks`, format: "raw", events: TYPES },
    });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret;
    const product = await s.polar.products.create({
      name: "Hooked",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, product.id);
    const first = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: first.current_period_end });
    await s.call(`/v1/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { cancel_at_period_end: true },
    });
    const renewed = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: renewed.current_period_end });

    const expected = [
      "order.created",
      "subscription.created",
      "subscription.active",
      "order.paid",
      // renewal
      "order.created",
      "order.paid",
      "subscription.updated",
      "subscription.cycled",
      // cancel at period end requested
      "subscription.updated",
      "subscription.canceled",
      // the period ends
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ];
    await waitFor(() => receiver.receipts.length >= expected.length, 20_000, "all webhooks");
    const got = receiver.receipts.map((r) => JSON.parse(r.body) as { type: string; data: any });
    expect(got.map((e) => e.type)).toEqual(expected);
    for (const r of receiver.receipts) {
      expect(r.standardOk).toBe(true);
      expect(r.polarOk).toBe(true);
    }
    const cycled = got.find((e) => e.type === "subscription.cycled")!;
    expect(cycled.data.id).toBe(subscriptionId);
    expect(got.at(-1)!.data).toMatchObject({ id: subscriptionId, status: "canceled" });
  });
});
