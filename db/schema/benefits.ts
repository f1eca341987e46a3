// Benefits: what a purchase grants (custom note, Discord role, GitHub access, downloads, license keys,
// meter credits). Deleting one is a soft delete, so past grants keep pointing at it.
import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import type { Metadata } from "./custom-fields.ts";

export const benefits = pgTable(
  "benefits",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    description: text("description").notNull(),
    visibility: text("visibility").notNull().default("public"),
    properties: jsonb("properties")
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [index("benefits_org_created_idx").on(t.organizationId, t.createdAt)],
);
