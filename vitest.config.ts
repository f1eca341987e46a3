import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".till/**", "dist/**"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // expect.poll waits for a page or a job to catch up; its default of 1 s fails on a loaded
    // machine while the same wait succeeds a moment later.
    expect: { poll: { timeout: 15_000 } },
  },
});
