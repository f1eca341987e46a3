// The seller of the checkout form's browser suites, on a server with French VAT, and Chromium: a
// monthly Pro plan whose buyers accept the terms, the LAUNCH20 code, and the sessions for the plan.
// Each suite file gets its own.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { api, createSeller } from "./auth.ts";
import { launchBrowser } from "./chromium.ts";
import { startTestServer, type TestServer } from "./server.ts";

export let t: TestServer;
export let browser: Browser;
export let token: string;
let planId: string;

/** Registers the suite's server and browser, the seller with its plan and discount code. */
export function withCheckoutForm(): void {
  beforeAll(async () => {
    // French VAT, so a change of country moves the total (the locale test's Germany stays untaxed).
    [t, browser] = await Promise.all([
      startTestServer({ env: { TAX_RATES: "FR:2000" } }),
      launchBrowser(),
    ]);
    token = (
      await createSeller(t.url, [
        "products:write",
        "checkouts:write",
        "orders:read",
        "discounts:write",
        "custom_fields:write",
        "meters:write",
      ])
    ).token;
    const terms = await api(t.url, "/v1/custom-fields/", {
      token,
      body: {
        type: "checkbox",
        slug: "terms",
        name: "Terms",
        properties: { form_label: "I accept the terms" },
      },
    });
    const plan = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Pro plan",
        description: "Everything in Pro, billed monthly.",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }],
        attached_custom_fields: [{ custom_field_id: terms.body.id, required: true }],
      },
    });
    expect(plan.status).toBe(201);
    planId = plan.body.id;
    const discount = await api(t.url, "/v1/discounts/", {
      token,
      body: {
        name: "Launch",
        code: "LAUNCH20",
        type: "percentage",
        basis_points: 2000,
        duration: "once",
      },
    });
    expect(discount.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });
}

/** A session for the Pro plan, asking for the billing address unless `extra` says otherwise. */
export async function newCheckout(extra: Record<string, unknown> = {}) {
  const res = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [planId], require_billing_address: true, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; url: string; client_secret: string };
}

/** Counts the page's calls to confirm, so a test can say no payment was attempted. */
export function confirmCalls(page: Page): () => number {
  let n = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/confirm")) n++;
  });
  return () => n;
}
