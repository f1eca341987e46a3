// Messages to the overlay on the seller's page: only when embedded, only to the checkout's
// embed_origin (never "*"), so no other page learns what happens in the checkout.
import { MESSAGE_TYPE, type CheckoutEventName } from "../../../embed/messages.ts";

export interface EmbedContext {
  embedded: boolean;
  origin: string | null;
}

export function embedContext(checkoutOrigin: string | null): EmbedContext {
  const params = new URLSearchParams(window.location.search);
  const embedded = params.get("embed") === "true" && window.parent !== window;
  return { embedded, origin: embedded ? checkoutOrigin : null };
}

export function notify(
  ctx: EmbedContext,
  event: CheckoutEventName,
  extra: Record<string, unknown> = {},
): void {
  if (!ctx.embedded || !ctx.origin) return;
  window.parent.postMessage({ type: MESSAGE_TYPE, event, ...extra }, ctx.origin);
}
