// The embed script, built twice with no runtime dependencies: a classic script (IIFE) served at
// /embed.js and an ES module at /embed.mjs.
import path from "node:path";
import { defineConfig } from "vite";

// `vite build -c vite.embed.config.ts --mode es` builds the module; any other mode the classic script.
export default defineConfig(({ mode }) => {
  const format = mode === "es" ? "es" : "iife";
  return {
    publicDir: false,
    build: {
      outDir: path.resolve(import.meta.dirname, "web", "dist", "embed"),
      emptyOutDir: false,
      minify: true,
      lib: {
        entry: path.resolve(
          import.meta.dirname,
          "embed",
          format === "es" ? "index.ts" : "global.ts",
        ),
        name: "TillCheckoutEmbed",
        formats: [format],
        fileName: () => (format === "es" ? "embed.mjs" : "embed.js"),
      },
    },
  };
});
