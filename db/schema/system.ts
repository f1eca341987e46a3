// Instance-wide facts that belong to the database rather than to any tenant (first start, version).
import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const tillMeta = pgTable("till_meta", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
