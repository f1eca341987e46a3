// After the payment: wait for the session to settle, then go on to the seller's success URL or to
// till's confirmation page (inside the overlay when embedded).
import { checkoutApi, settledStatus } from "./api.ts";
import { type EmbedContext, notify } from "./embed.ts";
import { confirmationPath } from "./format.ts";
import type { Checkout } from "./types.ts";

/** Off to the seller's success URL, or to till's confirmation page (inside the overlay if embedded). */
export function leave(
  secret: string,
  final: Checkout,
  token: string | null,
  embed: EmbedContext,
): void {
  const successURL = final.success_url.replace("{CHECKOUT_ID}", final.id);
  const target = new URL(successURL, window.location.href);
  const isDefault =
    target.origin === window.location.origin && target.pathname === confirmationPath(secret);
  notify(embed, "success", { successURL, redirect: !isDefault, checkoutId: final.id });
  // Either page replaces the checkout in the history: Back goes to the store, not to a paid
  // checkout that would send the buyer straight forward again.
  if (isDefault) {
    if (token) target.searchParams.set("customer_session_token", token);
    if (embed.embedded && embed.claimed) {
      target.searchParams.set("embed", "true");
      target.searchParams.set("embed_origin", embed.claimed);
    }
    target.searchParams.set("theme", document.documentElement.dataset.theme ?? "light");
    window.location.replace(target.toString());
  } else if (!embed.embedded) window.location.replace(successURL);
}

/**
 * After confirm: wait until the checkout leaves `confirmed` (the payment settles server-side). The
 * status stream says when; if it cannot be opened, poll.
 */
export async function settle(secret: string, checkout: Checkout): Promise<Checkout> {
  if (checkout.status !== "confirmed") return checkout;
  if (await settledStatus(secret, 30_000)) return checkoutApi.get(secret);
  let current = await checkoutApi.get(secret);
  for (let i = 0; i < 60 && current.status === "confirmed"; i++) {
    await new Promise((r) => setTimeout(r, 500));
    current = await checkoutApi.get(secret);
  }
  return current;
}
