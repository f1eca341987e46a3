// What a buyer meets on the hosted checkout beyond the happy path: amounts in a currency without
// cents, an amount typed with a decimal comma, a custom date's and number's bounds, a product's long
// unbroken name and description on a phone, the folded summary at 320 px in French, an applied
// discount's amount at 320 px, a page opened again while its payment is being processed, Back from
// the seller's success page, and one checkout paid in two tabs.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api } from "../test/helpers/auth.ts";
import { inTransaction } from "../db/client.ts";
import { systemClock } from "../server/lib/clock.ts";
import { recordEvent } from "../server/modules/webhooks/outbox.ts";
import { browser, newCheckout, t, token, withCheckoutForm } from "../test/helpers/checkout-form.ts";
import { fillCheckout } from "../test/helpers/checkout-page.ts";

withCheckoutForm();

/** A one-time product with these prices; answers a fresh session's URL and id. */
async function sessionFor(name: string, prices: unknown[], extra: Record<string, unknown> = {}) {
  const product = await api(t.url, "/v1/products/", { token, body: { name, prices, ...extra } });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const res = await api(t.url, "/v1/checkouts/", { token, body: { products: [product.body.id] } });
  expect(res.status).toBe(201);
  return res.body as { id: string; url: string; client_secret: string };
}

describe("the hosted checkout, as a buyer finds it", () => {
  it("a yen price shows whole yen, a pay-what-you-want amount is typed in yen, and that is charged", async () => {
    const fixed = await sessionFor("Yen print", [
      { amount_type: "fixed", price_amount: 1500, price_currency: "jpy" },
    ]);
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(fixed.url);
    await page.waitForSelector("#email");
    expect(await page.textContent("[data-testid=total]")).toBe("¥1,500");
    expect(await page.textContent("button.pay")).toBe("Pay ¥1,500");
    await fillCheckout(page);
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await page.waitForSelector("[data-testid=amount-paid]");
    expect(await page.textContent("[data-testid=amount-paid]")).toBe("¥1,500");

    const pwyw = await sessionFor("Yen tip", [
      { amount_type: "custom", price_currency: "jpy", minimum_amount: 500, preset_amount: 1000 },
    ]);
    await page.goto(pwyw.url);
    await page.waitForSelector("#amount");
    expect(await page.inputValue("#amount")).toBe("1000");
    await fillCheckout(page);
    await page.fill("#amount", "300");
    await page.click("button.pay");
    expect(await page.textContent("#amount-error")).toBe("At least ¥500.");
    await page.fill("#amount", "2000");
    await page.waitForSelector("button.pay:has-text('Pay ¥2,000')", { timeout: 10_000 });
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const order = (await api(t.url, `/v1/orders/?checkout_id=${pwyw.id}`, { token })).body.items[0];
    expect(order).toMatchObject({ total_amount: 2000, currency: "jpy" });
    await page.close();
  });

  it("a pay-what-you-want amount typed with a decimal comma is read as cents; '1,000' is refused", async () => {
    const session = await sessionFor("Comma tip", [
      { amount_type: "custom", price_currency: "usd", minimum_amount: 500, preset_amount: 1000 },
    ]);
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(session.url);
    await page.waitForSelector("#amount");
    await fillCheckout(page);
    // "1,000" could be a thousand or one unit: neither is guessed.
    await page.fill("#amount", "1,000");
    await page.click("button.pay");
    expect(await page.textContent("#amount-error")).toBe("Enter an amount.");
    await page.fill("#amount", "12,50");
    await page.waitForSelector("button.pay:has-text('Pay $12.50')", { timeout: 10_000 });
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const order = (await api(t.url, `/v1/orders/?checkout_id=${session.id}`, { token })).body
      .items[0];
    expect(order).toMatchObject({ total_amount: 1250, currency: "usd" });
    await page.close();
  });

  it("a custom date or number offers only what the field allows, and a refused date names the bound", async () => {
    const field = async (body: Record<string, unknown>) =>
      (await api(t.url, "/v1/custom-fields/", { token, body })).body.id as string;
    // 2026-01-01 12:00 and 2026-12-31 12:00 UTC: a date is its day's midnight.
    const start = await field({
      type: "date",
      slug: "start",
      name: "Start",
      properties: { form_label: "Start date", ge: 1767268800, le: 1798718400 },
    });
    const size = await field({
      type: "number",
      slug: "team-size",
      name: "Team size",
      properties: { form_label: "Team size", ge: 1, le: 50 },
    });
    const session = await sessionFor(
      "Onboarding",
      [{ amount_type: "fixed", price_amount: 5000, price_currency: "usd" }],
      {
        attached_custom_fields: [
          { custom_field_id: start, required: true },
          { custom_field_id: size, required: false },
        ],
      },
    );
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(session.url);
    await page.waitForSelector("#custom-start");
    const bounds = (id: string) =>
      page.$eval(id, (el) => [el.getAttribute("min"), el.getAttribute("max")]);
    expect(await bounds("#custom-start")).toEqual(["2026-01-02", "2026-12-31"]);
    expect(await bounds("#custom-team-size")).toEqual(["1", "50"]);
    await fillCheckout(page);
    await page.fill("#custom-start", "2026-01-01");
    await page.click("button.pay");
    await page.waitForSelector("#custom-start-error");
    expect(await page.textContent("#custom-start-error")).toBe("Choose 2026-01-02 or later.");
    await page.close();
  });

  it("a long unbroken product name and description wrap on a phone: nothing scrolls sideways", async () => {
    const word = "Supercalifragilistic_expialidocious_extraordinarily_long_name_x";
    const session = await sessionFor(
      word,
      [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
      { description: `${word}${word}${word}${word}` },
    );
    const page = await browser.newPage({ viewport: { width: 375, height: 667 }, locale: "en-US" });
    const sideways = () =>
      page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.goto(session.url);
    await page.waitForSelector("#email");
    await page.click(".summary-toggle");
    await page.waitForSelector(".summary-body .description");
    expect(await sideways()).toBe(0);
    await fillCheckout(page);
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await page.waitForSelector("[data-testid=amount-paid]");
    expect(await sideways()).toBe(0);
    await page.close();
  });

  it("on a 320 px phone in French the folded summary's label and total stay apart", async () => {
    const session = await newCheckout();
    await api(t.url, `/v1/checkouts/client/${session.client_secret}`, {
      method: "PATCH",
      body: { discount_code: "LAUNCH20" },
    });
    const page = await browser.newPage({ viewport: { width: 320, height: 640 }, locale: "fr-FR" });
    await page.goto(session.url);
    await page.waitForSelector("#email");
    await page.click(".summary-toggle");
    const space = await page.$eval(".summary-toggle", (toggle) => {
      const label = toggle.querySelector("span")!.getBoundingClientRect();
      const total = toggle.querySelector("strong")!.getBoundingClientRect();
      return total.left - label.right;
    });
    expect(space).toBeGreaterThanOrEqual(8);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBe(0);
    await page.close();
  });

  it("on a 320 px phone the applied discount's minus sign stays with its amount", async () => {
    const session = await newCheckout();
    await api(t.url, `/v1/checkouts/client/${session.client_secret}`, {
      method: "PATCH",
      body: { discount_code: "LAUNCH20" },
    });
    const page = await browser.newPage({ viewport: { width: 320, height: 640 }, locale: "en-US" });
    await page.goto(session.url);
    await page.waitForSelector(".applied");
    // The lines the text from the minus sign to the amount's end is laid out on.
    const lines = await page.$eval(".applied span", (span) => {
      const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      const minus = nodes.find((n) => n.data.includes("−"))!;
      const last = nodes.at(-1)!;
      const range = document.createRange();
      range.setStart(minus, minus.data.indexOf("−"));
      range.setEnd(last, last.data.length);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(await page.textContent(".applied span")).toContain("−$3.80");
    expect(lines).toBe(1);
    await page.close();
  });

  it("opened again while its payment is processed, the page waits for it instead of calling the checkout closed", async () => {
    const checkout = await newCheckout({ require_billing_address: false });
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    // A confirm of the buyer's holds the session while the processor charges (a reload mid-payment).
    const [row] = await t.testDb.database.rows<{ organization_id: string }>(sql`
      update checkouts set status = 'confirmed', payment_attempts = payment_attempts + 1
      where id = ${checkout.id} returning organization_id`);
    await page.reload();
    await page.waitForSelector("[role=status] h1");
    expect(await page.textContent("main")).toContain("Your payment is being processed");
    expect(await page.$("form")).toBeNull();
    // The charge fails: the session is open again, and the page says so above the form.
    await inTransaction(t.server.database.db, async (tx) => {
      await tx.execute(sql`update checkouts set status = 'open' where id = ${checkout.id}`);
      await recordEvent(tx, systemClock, {
        organizationId: row!.organization_id,
        type: "checkout.updated",
        data: { id: checkout.id, status: "open" },
      });
    });
    await page.waitForSelector("#general-error", { timeout: 15_000 });
    expect(await page.textContent("#general-error")).toContain("nothing was charged");
    expect(await page.isVisible("button.pay")).toBe(true);
    await page.close();
  });

  it("Back from the seller's success page goes to the store, not to the paid checkout", async () => {
    const checkout = await newCheckout({
      require_billing_address: false,
      success_url: `${t.url}/portal?thanks={CHECKOUT_ID}`,
    });
    const page = await browser.newPage({ locale: "en-US" });
    // Any page before the checkout stands for the seller's store.
    const store = `${t.url}/portal?store=1`;
    await page.goto(store);
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await fillCheckout(page);
    await page.check("#custom-terms");
    await page.click("button.pay");
    await page.waitForURL(/thanks=/, { timeout: 15_000 });
    await page.goBack();
    expect(page.url()).toBe(store);
    await page.close();
  });

  it("paid meanwhile in another tab, Pay goes on to the confirmation instead of a refusal beside the card", async () => {
    const checkout = await newCheckout({ require_billing_address: false });
    const context = await browser.newContext({ locale: "en-US" });
    const [first, second] = [await context.newPage(), await context.newPage()];
    for (const page of [first, second]) {
      await page.goto(checkout.url);
      await page.waitForSelector("#email");
      await fillCheckout(page, { email: "two-tabs@example.com" });
      await page.check("#custom-terms");
    }
    await first.click("button.pay");
    await first.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await second.click("button.pay");
    await second.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await second.waitForSelector("[data-testid=amount-paid]");
    expect(await second.textContent("[data-testid=amount-paid]")).toBe("$19.00");
    const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.id}`, { token });
    expect(orders.body.items).toHaveLength(1);
    await context.close();
  });
});
