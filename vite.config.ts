// The dashboard, the hosted checkout page, the customer portal page and the demo store's page (till dev), built into web/dist and served by till's Express app.
import path from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./web/precompress.ts";

const root = path.resolve(import.meta.dirname, "web");

export default defineConfig({
  root,
  base: "/",
  plugins: [react(), precompress(path.join(root, "dist", "assets"))],
  build: {
    outDir: path.join(root, "dist"),
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      input: {
        dashboard: path.join(root, "index.html"),
        checkout: path.join(root, "checkout.html"),
        confirmation: path.join(root, "confirmation.html"),
        portal: path.join(root, "portal.html"),
        demo: path.join(root, "demo.html"),
      },
    },
  },
});
