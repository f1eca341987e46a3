// The classic script served at /embed.js: sets window.TillCheckout, binds
// [data-till-checkout] / [data-polar-checkout] links when the page has loaded.
import { checkoutEmbed } from "./index.ts";
import { allowedOrigins, TillCheckout } from "./overlay.ts";

// Replaced by the server with a JSON array of its origins when it serves the file.
const baked = "__TILL_ALLOWED_ORIGINS__";
if (baked.startsWith("[")) allowedOrigins.push(...(JSON.parse(baked) as string[]));

const api = Object.assign(TillCheckout, { checkoutEmbed });
(window as unknown as { TillCheckout: typeof api }).TillCheckout = api;

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => TillCheckout.init());
else TillCheckout.init();
