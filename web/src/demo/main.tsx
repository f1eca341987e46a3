import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { DemoPage } from "./demo-page.tsx";
import "./demo.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <DemoPage />
  </StrictMode>,
);
