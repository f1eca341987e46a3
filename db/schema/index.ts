// Every table of till, re-exported in one place for drizzle and drizzle-kit.
export * from "./auth.ts";
export * from "./benefits.ts";
export * from "./custom-fields.ts";
export * from "./discounts.ts";
export * from "./email.ts";
export * from "./files.ts";
export * from "./meters.ts";
export * from "./organizations.ts";
export * from "./outbox.ts";
export * from "./payments.ts";
export * from "./products.ts";
export * from "./system.ts";
