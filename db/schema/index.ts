// Every table of till, re-exported in one place for drizzle and drizzle-kit.
export * from "./auth.ts";
export * from "./email.ts";
export * from "./meters.ts";
export * from "./organizations.ts";
export * from "./outbox.ts";
export * from "./system.ts";
export * from "./webhooks.ts";
