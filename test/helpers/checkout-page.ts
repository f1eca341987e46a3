// Filling till's hosted checkout page in a browser (a page or the overlay's frame).
import type { Frame, Page } from "playwright-core";
import { US_ADDRESS } from "./addresses.ts";

let buyers = 0;

/**
 * Fills the form; each call is a new buyer unless `email` says otherwise (an organization sells one
 * subscription per customer by default). A US buyer gives the complete address the page asks for.
 */
export async function fillCheckout(
  target: Page | Frame,
  options: { email?: string; card?: string; country?: string } = {},
): Promise<void> {
  await target.fill("#email", options.email ?? `browser-${++buyers}@example.com`);
  const country = options.country ?? "US";
  await fillAddress(target, country === "US" ? US_ADDRESS : { country });
  await fillCard(target, options.card);
}

/** Types a sandbox test card (the one that pays unless told). */
export async function fillCard(target: Page | Frame, card = "4242 4242 4242 4242"): Promise<void> {
  await target.fill("#card-number", card);
  await target.fill("#card-expiry", "12/34");
  await target.fill("#card-cvc", "123");
}

/** Picks the address's country, then types the fields it has (the state picked from its list). */
export async function fillAddress(
  target: Page | Frame,
  address: { country: string; state?: string; line1?: string; city?: string; postal_code?: string },
): Promise<void> {
  await target.selectOption("#address-country", address.country);
  for (const key of ["line1", "city", "postal_code"] as const) {
    const value = address[key];
    if (value) await target.fill(`#address-${key}`, value);
  }
  if (address.state) await target.selectOption("#address-state", address.state);
}
