// The seller's side of the portal's browser tests: calls with the seller's token, a purchase
// through the checkout with a sandbox card, and the portal page opened from a new customer session.
import type { Browser } from "playwright-core";
import { expect } from "vitest";
import { US_ADDRESS } from "./addresses.ts";
import { api } from "./auth.ts";

export interface PortalOrder {
  id: string;
  customer_id: string;
  subscription_id: string;
  invoice_number: string;
}

export function portalSeller(url: string, token: string) {
  async function call(path: string, init: { method?: string; body?: unknown } = {}) {
    const res = await api(url, path, { token, ...init });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  }
  /** The order of a purchase of the product by Grace Hopper (a US buyer) with the card token. */
  async function purchase(productId: string, email: string, card = "sandbox_token_success") {
    const checkout = await call("/v1/checkouts/", { body: { products: [productId] } });
    const confirmed = await api(url, `/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      body: {
        customer_email: email,
        customer_name: "Grace Hopper",
        customer_billing_address: US_ADDRESS,
        confirmation_token_id: card,
      },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    return (await call(`/v1/orders/?checkout_id=${checkout.id}`)).items[0] as PortalOrder;
  }
  async function openPortal(
    browser: Browser,
    customerId: string,
    viewport?: { width: number; height: number },
  ) {
    const session = await call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const page = await browser.newPage(viewport ? { viewport } : {});
    await page.goto(session.customer_portal_url);
    return page;
  }
  return { call, purchase, openPortal };
}
