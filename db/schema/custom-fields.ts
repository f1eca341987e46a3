// Custom fields: extra questions a seller asks at checkout, attached to products.
import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt } from "./columns.ts";

export type Metadata = Record<string, string | number | boolean>;

export const customFields = pgTable(
  "custom_fields",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    properties: jsonb("properties")
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("custom_fields_org_slug_uq").on(t.organizationId, t.slug),
    index("custom_fields_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);
