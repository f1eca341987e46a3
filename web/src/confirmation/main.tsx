import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ConfirmationPage } from "./confirmation-page.tsx";
import "../checkout/checkout.css";
import "./confirmation.css";

// The checkout hands the buyer's customer session over in the link; like the portal, the page keeps
// it for this tab (per checkout) and takes it out of the address bar.
const params = new URLSearchParams(window.location.search);
document.documentElement.dataset.theme = params.get("theme") === "dark" ? "dark" : "light";
if (params.get("embed") === "true") document.documentElement.dataset.embed = "true";
const secret = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] ?? "");
const key = `till_confirmation:${secret}`;
const fromUrl = params.get("customer_session_token");
// In the overlay the page is a third-party frame, where the browser may deny storage.
const stored = {
  get: () => {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set: (value: string) => {
    try {
      sessionStorage.setItem(key, value);
    } catch {}
  },
};
if (fromUrl) {
  stored.set(fromUrl);
  params.delete("customer_session_token");
  const rest = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}`);
}
const token = fromUrl ?? stored.get();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ConfirmationPage secret={secret} token={token} />
  </StrictMode>,
);
