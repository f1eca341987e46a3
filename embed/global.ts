// The classic script served at /embed.js: sets window.TillCheckout, binds
// [data-till-checkout] / [data-polar-checkout] links when the page has loaded.
import { allowedOrigins, TillCheckout } from "./overlay.ts";

// Replaced by the server with a JSON array of its origins when it serves the file.
const baked = "__TILL_ALLOWED_ORIGINS__";
if (baked.startsWith("[")) allowedOrigins.push(...(JSON.parse(baked) as string[]));

// checkoutEmbed (create through the seller's server, then open) is in the ES module and the
// better-auth client plugin; the classic script stays as small as a drop-in overlay can be.
(window as unknown as { TillCheckout: typeof TillCheckout }).TillCheckout = TillCheckout;

if (document.readyState === "loading")
  document.addEventListener("DOMContentLoaded", () => TillCheckout.init());
else TillCheckout.init();
