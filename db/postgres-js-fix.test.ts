// The installed postgres.js is the one the fixes were written for: a driver update whose source no
// longer matches fails here, rather than silently loading the driver unmended.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mendedSource } from "./postgres-js-fix.ts";

describe("postgres.js connection fixes", () => {
  it("apply to the installed driver", () => {
    // The CommonJS entry (cjs/src/index.js) sits beside the ESM one's folder: src/connection.js.
    const cjs = createRequire(import.meta.url).resolve("postgres");
    const root = path.resolve(path.dirname(cjs), "..", "..");
    const source = readFileSync(path.join(root, "src", "connection.js"), "utf8");
    const mended = mendedSource(source);
    expect(mended).not.toBeNull();
    expect(mended).toContain("if (!socket) {");
  });
});
