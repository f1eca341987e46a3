// The seller side of an organization (Polar's Organization), one row per better-auth organization
// with the same id; and the organization access tokens that CI and servers use.
import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";

export const organizationProfiles = pgTable("organization_profiles", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  email: text("email"),
  website: text("website"),
  socials: jsonb("socials").$type<{ platform: string; url: string }[]>().notNull().default([]),
  status: text("status").notNull().default("created"),
  country: text("country"),
  details: jsonb("details").$type<Record<string, unknown>>(),
  detailsSubmittedAt: tstz("details_submitted_at"),
  defaultPresentmentCurrency: text("default_presentment_currency").notNull().default("usd"),
  defaultTaxBehavior: text("default_tax_behavior").notNull().default("location"),
  settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
  embedHosts: jsonb("embed_hosts").$type<string[]>().notNull().default([]),
  createdAt: createdAt(),
  modifiedAt: modifiedAt(),
});

export const organizationAccessTokens = pgTable(
  "organization_access_tokens",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    comment: text("comment").notNull(),
    scopes: text("scopes").array().notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: tstz("expires_at"),
    lastUsedAt: tstz("last_used_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("organization_access_tokens_org_idx").on(t.organizationId, t.createdAt)],
);
