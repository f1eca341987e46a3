// Messages to the overlay on the seller's page: only when embedded, only to the checkout's
// embed_origin (never "*"), so no other page learns what happens in the checkout. A page embedded
// by an origin the checkout does not name shows nothing usable and tells that origin only "error".
import { type CheckoutEventName, MESSAGE_TYPE } from "../../../embed/messages.ts";

export interface EmbedContext {
  embedded: boolean;
  /** The checkout's own embed_origin, where its events go. */
  origin: string | null;
  /** The origin the overlay says it runs on (?embed_origin=). */
  claimed: string | null;
}

export function embedContext(checkoutOrigin: string | null): EmbedContext {
  const params = new URLSearchParams(window.location.search);
  const embedded = params.get("embed") === "true" && window.parent !== window;
  return {
    embedded,
    origin: embedded ? checkoutOrigin : null,
    claimed: embedded ? params.get("embed_origin") : null,
  };
}

/** Embedded by the origin the checkout allows (or not embedded at all). */
export function embedAllowed(ctx: EmbedContext): boolean {
  return !ctx.embedded || (ctx.origin !== null && ctx.origin === ctx.claimed);
}

export function notify(
  ctx: EmbedContext,
  event: CheckoutEventName,
  extra: Record<string, unknown> = {},
): void {
  if (!ctx.embedded || !ctx.origin || !embedAllowed(ctx)) return;
  window.parent.postMessage({ type: MESSAGE_TYPE, event, ...extra }, ctx.origin);
}

/** Tells the overlay the checkout cannot be shown; carries only a message for the buyer. */
export function notifyError(ctx: EmbedContext, message: string): void {
  if (!ctx.embedded || !ctx.claimed) return;
  try {
    const origin = new URL(ctx.claimed).origin;
    window.parent.postMessage({ type: MESSAGE_TYPE, event: "error", message }, origin);
  } catch {}
}

/** Escape inside the frame asks the overlay to close (key presses in a frame stay in the frame). */
export function forwardEscape(ctx: EmbedContext): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") notify(ctx, "close");
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
