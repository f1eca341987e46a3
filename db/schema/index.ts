// Every table of till, re-exported in one place for drizzle and drizzle-kit.
export * from "./auth.ts";
export * from "./benefits.ts";
export * from "./checkouts.ts";
export * from "./custom-fields.ts";
export * from "./customers.ts";
export * from "./discounts.ts";
export * from "./email.ts";
export * from "./events.ts";
export * from "./files.ts";
export * from "./meters.ts";
export * from "./orders.ts";
export * from "./organizations.ts";
export * from "./outbox.ts";
export * from "./payments.ts";
export * from "./products.ts";
export * from "./system.ts";
export * from "./grants.ts";
