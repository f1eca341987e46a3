// Sandbox confirmation tokens: the card a customer typed, reduced to what decides the outcome (brand,
// last four, the test outcome). Card numbers and CVCs are never stored.
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./columns.ts";

export const sandboxConfirmationTokens = pgTable(
  "sandbox_confirmation_tokens",
  {
    id: text("id").primaryKey(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    outcome: text("outcome").$type<"success" | "declined" | "insufficient_funds">().notNull(),
    usedAt: tstz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("sandbox_confirmation_tokens_created_idx").on(t.createdAt)],
);
