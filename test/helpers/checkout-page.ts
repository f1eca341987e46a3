// Filling till's hosted checkout page in a browser (a page or the overlay's frame).
import type { Frame, Page } from "playwright-core";

export async function fillCheckout(
  target: Page | Frame,
  options: { email?: string; card?: string; country?: string } = {},
): Promise<void> {
  await target.fill("#email", options.email ?? "browser@example.com");
  await target.selectOption("#address-country", options.country ?? "US");
  await target.fill("#card-number", options.card ?? "4242 4242 4242 4242");
  await target.fill("#card-expiry", "12/34");
  await target.fill("#card-cvc", "123");
}
