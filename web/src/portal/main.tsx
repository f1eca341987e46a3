import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { PortalPage } from "./portal-page.tsx";
import "./portal.css";

// The token arrives in the link (?customer_session_token=…). It is kept for this tab only and
// removed from the address bar, so it does not end up in bookmarks, history or shared screenshots.
const params = new URLSearchParams(window.location.search);
document.documentElement.dataset.theme = params.get("theme") === "dark" ? "dark" : "light";
const fromUrl = params.get("customer_session_token");
if (fromUrl) {
  sessionStorage.setItem("till_customer_session", fromUrl);
  params.delete("customer_session_token");
  const rest = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}`);
}
const token = fromUrl ?? sessionStorage.getItem("till_customer_session");

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <PortalPage token={token} />
  </StrictMode>,
);
