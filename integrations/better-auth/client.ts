// The browser half of till's better-auth plugin: `authClient.checkoutEmbed(input)` creates the
// checkout through the seller's server (cookie included, redirect: false, embedOrigin = this page)
// and opens it in till's overlay; an error answer throws the server's message. The other endpoints
// are plain client calls (authClient.customer.state(), authClient.customer.portal() …); better-auth's
// default fetch plugins include cookies and follow `{url, redirect: true}` answers.
import type { BetterAuthClientPlugin } from "better-auth/client";
import { TillCheckout } from "../../embed/overlay.ts";
import type { CheckoutInput, till } from "./server.ts";

export function tillClient() {
  return {
    id: "till-client",
    $InferServerPlugin: {} as ReturnType<typeof till>,
    getActions: ($fetch) => ({
      checkoutEmbed: async (
        input: Omit<CheckoutInput, "redirect" | "embedOrigin">,
      ): Promise<TillCheckout> => {
        const res = await $fetch<{ url: string; redirect: boolean }>("/checkout", {
          method: "POST",
          body: { ...input, redirect: false, embedOrigin: window.location.origin },
        });
        if (res.error)
          throw new Error(
            res.error.message || `Checkout could not be created (HTTP ${res.error.status}).`,
          );
        // The overlay takes the theme from the checkout URL (the server's `theme` option), light by default.
        return TillCheckout.create(res.data.url);
      },
    }),
  } satisfies BetterAuthClientPlugin;
}
