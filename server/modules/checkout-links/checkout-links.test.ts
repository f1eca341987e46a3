import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let polar: Polar;
let token: string;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [
    "products:write",
    "checkout_links:write",
    "checkouts:read",
  ]);
  token = seller.token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
  productId = (
    await polar.products.create({
      name: "Linked",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    })
  ).id;
});
afterAll(() => t.stop());

describe("checkout links", () => {
  it("create, get, list, update and delete through Polar's client", async () => {
    const link = await polar.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [productId],
      label: "Launch",
      successUrl: "https://shop.example/ok",
    });
    expect(link.clientSecret).toMatch(/^till_cl_/);
    expect(link.url).toBe(`${t.url}/buy/${link.clientSecret}`);
    expect(link.products.map((p) => p.id)).toEqual([productId]);
    expect((await polar.checkoutLinks.get({ id: link.id })).label).toBe("Launch");
    const page = await polar.checkoutLinks.list({ productId });
    expect(page.result.items.map((l) => l.id)).toContain(link.id);
    const updated = await polar.checkoutLinks.update({
      id: link.id,
      checkoutLinkUpdate: { label: "Relaunch" },
    });
    expect(updated.label).toBe("Relaunch");
    await polar.checkoutLinks.delete({ id: link.id });
    await expect(polar.checkoutLinks.get({ id: link.id })).rejects.toMatchObject({
      statusCode: 404,
    });
    expect((await fetch(`${t.url}/buy/${link.clientSecret}`, { redirect: "manual" })).status).toBe(
      404,
    );
  });

  it("/buy/{secret} opens a fresh session with the prefill and passes other parameters on to the page", async () => {
    const link = await polar.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [productId],
    });
    const res = await fetch(
      `${t.url}/buy/${link.clientSecret}?customer_email=pre@example.com&embed_origin=https://shop.example&theme=dark&utm_source=x`,
      { redirect: "manual" },
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.pathname).toMatch(/^\/checkout\/till_c_/);
    expect(location.searchParams.get("theme")).toBe("dark");
    expect(location.searchParams.get("utm_source")).toBe("x");
    expect(location.searchParams.has("customer_email")).toBe(false);
    const secret = location.pathname.split("/")[2]!;
    const session = await api(t.url, `/v1/checkouts/client/${secret}`);
    expect(session.body).toMatchObject({
      customer_email: "pre@example.com",
      embed_origin: "https://shop.example",
      product_id: productId,
      total_amount: 900,
    });
    const second = await fetch(`${t.url}/buy/${link.clientSecret}`, { redirect: "manual" });
    expect(second.headers.get("location")).not.toBe(res.headers.get("location"));
  });

  it("a link for another organization's product is a 422 on products.0; a bad embed_origin on /buy is a 422", async () => {
    const other = await createSeller(t.url, ["products:write"]);
    const theirs = await api(t.url, "/v1/products/", {
      token: other.token,
      body: {
        name: "X",
        prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "usd" }],
      },
    });
    const res = await api(t.url, "/v1/checkout-links/", {
      token,
      body: { payment_processor: "stripe", products: [theirs.body.id] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "products", 0]);
    const link = await polar.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [productId],
    });
    const bad = await fetch(`${t.url}/buy/${link.clientSecret}?embed_origin=javascript:alert(1)`, {
      redirect: "manual",
    });
    expect(bad.status).toBe(422);
  });

  it("lists oldest first, as Polar does, and sorts by each CheckoutLinkSortProperty both ways", async () => {
    const sorted = (
      await polar.products.create({
        name: "Sorted",
        prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }],
      })
    ).id;
    const link = async (label: string, successUrl: string, allowDiscountCodes: boolean) =>
      (
        await polar.checkoutLinks.create({
          paymentProcessor: "stripe",
          products: [sorted],
          label,
          successUrl,
          allowDiscountCodes,
        })
      ).id;
    const l1 = await link("b", "https://c.example/", false);
    const l2 = await link("c", "https://a.example/", true);
    const l3 = await link("a", "https://b.example/", true);
    const ids = async (sorting: string) => {
      const res = await api(t.url, `/v1/checkout-links/?product_id=${sorted}${sorting}`, { token });
      expect(res.status, sorting).toBe(200);
      return res.body.items.map((l: { id: string }) => l.id);
    };
    expect(await ids("")).toEqual([l1, l2, l3]);
    const [first, second] = [l2, l3].sort();
    for (const [key, ascending, descending] of [
      ["created_at", [l1, l2, l3], [l3, l2, l1]],
      ["label", [l3, l1, l2], [l2, l1, l3]],
      ["success_url", [l2, l3, l1], [l1, l3, l2]],
      // l2 and l3 both allow codes: the id breaks the tie, ascending either way.
      ["allow_discount_codes", [l1, first, second], [first, second, l1]],
    ] as const) {
      expect(await ids(`&sorting=${key}`), key).toEqual(ascending);
      expect(await ids(`&sorting=-${key}`), `-${key}`).toEqual(descending);
    }
    const bad = await api(t.url, "/v1/checkout-links/?sorting=name", { token });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe("RequestValidationError");
    expect(bad.body.detail[0].loc.slice(0, 2)).toEqual(["query", "sorting"]);
  });
});
