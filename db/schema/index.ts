// Every table of till, re-exported in one place for drizzle and drizzle-kit.
export * from "./system.ts";
