// The protocol between the hosted checkout page (inside the iframe) and the overlay (on the
// seller's page). Polar's message type is kept so pages and listeners written for Polar work as is;
// `error` is added for a checkout that cannot be shown in this frame.
export const MESSAGE_TYPE = "POLAR_CHECKOUT";

export type CheckoutEventName = "loaded" | "close" | "confirmed" | "success" | "error";

export interface CheckoutMessage {
  type: typeof MESSAGE_TYPE;
  event: CheckoutEventName;
  /** success: where to go next, and whether the overlay should navigate there. */
  successURL?: string;
  redirect?: boolean;
  checkoutId?: string;
  orderId?: string | null;
  /** error: what the buyer should read. */
  message?: string;
}

const EVENTS: readonly string[] = ["loaded", "close", "confirmed", "success", "error"];

export function isCheckoutMessage(data: unknown): data is CheckoutMessage {
  if (!data || typeof data !== "object") return false;
  const m = data as Record<string, unknown>;
  return m.type === MESSAGE_TYPE && typeof m.event === "string" && EVENTS.includes(m.event);
}

/** Sent by the checkout page: only to the embedding origin, never to "*". */
export function postCheckoutMessage(
  target: Window,
  embedOrigin: string,
  message: Omit<CheckoutMessage, "type">,
): void {
  target.postMessage({ type: MESSAGE_TYPE, ...message }, embedOrigin);
}
