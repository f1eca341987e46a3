// The portal's order and subscription lists sort by every key of Polar's CustomerOrderSortProperty
// and CustomerSubscriptionSortProperty, both ways; a key of the seller's lists is a 422 here.
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  ada,
  oneTimeProductId,
  polar,
  session,
  t,
  token,
  withPortalShop,
} from "../../../test/helpers/customer-portal.ts";

withPortalShop();

async function ids(path: string, cst: string): Promise<string[]> {
  const res = await api(t.url, path, { token: cst });
  expect(res.status, path).toBe(200);
  return res.body.items.map((i: { id: string }) => i.id);
}

describe("customer portal sorting", () => {
  it("sorts Ada's orders by product name and by subscription, both ways", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    const ebook = (
      await polar.orders.list({ customerId: ada.customerId, productId: oneTimeProductId })
    ).result.items[0]!.id;
    const pro = ada.orderId;
    const path = "/v1/customer-portal/orders/?sorting=";
    expect(await ids(`${path}product`, cst)).toEqual([ebook, pro]);
    expect(await ids(`${path}-product`, cst)).toEqual([pro, ebook]);
    // The one-time order has no subscription: last ascending, first descending.
    expect(await ids(`${path}subscription`, cst)).toEqual([pro, ebook]);
    expect(await ids(`${path}-subscription`, cst)).toEqual([ebook, pro]);
  });

  it("sorts Ada's subscriptions by product name; by organization, all of one shop, by id", async () => {
    const atlas = await polar.products.create({
      name: "Atlas",
      recurringInterval: "month",
      prices: [{ amountType: "free" }],
    });
    const created = await api(t.url, "/v1/subscriptions/", {
      token,
      body: { product_id: atlas.id, customer_id: ada.customerId },
    });
    expect(created.status).toBe(201);
    const { token: cst } = await session({ customer_id: ada.customerId });
    const path = "/v1/customer-portal/subscriptions/?sorting=";
    expect(await ids(`${path}product`, cst)).toEqual([created.body.id, ada.subscriptionId]);
    expect(await ids(`${path}-product`, cst)).toEqual([ada.subscriptionId, created.body.id]);
    // A session is one organization's, so its slug ties every row and the id decides.
    const byId = [created.body.id, ada.subscriptionId].sort();
    expect(await ids(`${path}organization`, cst)).toEqual(byId);
    expect(await ids(`${path}-organization`, cst)).toEqual(byId);
  });

  it("a key of the seller's lists, or none at all, is a 422 on sorting", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    for (const path of [
      "/v1/customer-portal/orders/?sorting=customer",
      "/v1/customer-portal/orders/?sorting=-status",
      "/v1/customer-portal/subscriptions/?sorting=-discount",
      "/v1/customer-portal/subscriptions/?sorting=nope",
    ]) {
      const res = await api(t.url, path, { token: cst });
      expect(res.status, path).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["query", "sorting"]);
    }
  });
});
