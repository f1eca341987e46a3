import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { CheckoutPage } from "./checkout-page.tsx";
import "./checkout.css";

const params = new URLSearchParams(window.location.search);
document.documentElement.dataset.theme = params.get("theme") === "dark" ? "dark" : "light";
if (params.get("embed") === "true") document.documentElement.dataset.embed = "true";
const secret = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] ?? "");

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <CheckoutPage secret={secret} />
  </StrictMode>,
);
