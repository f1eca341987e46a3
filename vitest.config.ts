import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".till/**", "dist/**"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    // On PostgreSQL (TEST_DATABASE_URL, the harness's own switch) a worker runs its test files one
    // after another in one module graph instead of importing the server afresh for each: the same
    // suite in 581 s instead of 955 s on the 2-core machine. Every file still gets its own
    // database and servers. PGlite runs stay isolated: each file holds an embedded database whose
    // memory a fresh process gives back.
    isolate: !process.env.TEST_DATABASE_URL,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // expect.poll waits for a page or a job to catch up; its default of 1 s fails on a loaded
    // machine while the same wait succeeds a moment later.
    expect: { poll: { timeout: 15_000 } },
  },
});
