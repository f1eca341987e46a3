// The ES module: `import { TillCheckout, checkoutEmbed } from ".../embed.mjs"`.
import { TillCheckout, type Theme } from "./overlay.ts";

export {
  TillCheckout,
  allowedOrigins,
  type CreateOptions,
  type OverlayEventName,
  type Theme,
} from "./overlay.ts";
export { MESSAGE_TYPE, isCheckoutMessage, type CheckoutMessage } from "./messages.ts";

export interface CheckoutEmbedOptions {
  /** The seller's server route that creates the checkout (default "/api/auth/checkout"). */
  endpoint?: string;
  theme?: Theme;
}

/**
 * Creates a checkout through the seller's own server (with its session cookie) and opens it in the
 * overlay. The server must answer `{url}`; an error answer throws its message.
 */
export async function checkoutEmbed(
  input: Record<string, unknown>,
  options: CheckoutEmbedOptions = {},
): Promise<TillCheckout> {
  const res = await fetch(options.endpoint ?? "/api/auth/checkout", {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...input, redirect: false, embedOrigin: window.location.origin }),
  });
  const body = (await res.json().catch(() => null)) as {
    url?: string;
    message?: string;
    detail?: unknown;
  } | null;
  if (!res.ok || !body?.url) {
    const detail = typeof body?.detail === "string" ? body.detail : undefined;
    throw new Error(
      body?.message ?? detail ?? `Checkout could not be created (HTTP ${res.status}).`,
    );
  }
  return TillCheckout.create(body.url, options.theme ? { theme: options.theme } : {});
}
