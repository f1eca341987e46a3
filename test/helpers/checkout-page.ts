// Filling till's hosted checkout page in a browser (a page or the overlay's frame).
import type { Frame, Page } from "playwright-core";

let buyers = 0;

/**
 * Fills the form; each call is a new buyer unless `email` says otherwise (an organization sells one
 * subscription per customer by default).
 */
export async function fillCheckout(
  target: Page | Frame,
  options: { email?: string; card?: string; country?: string } = {},
): Promise<void> {
  await target.fill("#email", options.email ?? `browser-${++buyers}@example.com`);
  await target.selectOption("#address-country", options.country ?? "US");
  await target.fill("#card-number", options.card ?? "4242 4242 4242 4242");
  await target.fill("#card-expiry", "12/34");
  await target.fill("#card-cvc", "123");
}
