// OAuth 2.0 apps: clients registered by a user (RFC 7591), the short-lived authorization codes a
// consent makes, and the access/refresh token pairs a code or refresh turns into. Secrets and tokens
// are stored as SHA-256 hashes; the client secret is also sealed, since registration reads show it.
import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization, user } from "./auth.ts";
import { id, timestamps, tstz } from "./columns.ts";

export const oauth2Clients = pgTable("oauth2_clients", {
  id: id(),
  clientId: text("client_id").notNull().unique(),
  clientSecretHash: text("client_secret_hash").notNull(),
  clientSecretSealed: text("client_secret_sealed").notNull(),
  userId: uuid("user_id")
    .notNull()
    .references(() => user.id, { onDelete: "cascade" }),
  clientName: text("client_name").notNull(),
  redirectUris: jsonb("redirect_uris").$type<string[]>().notNull(),
  tokenEndpointAuthMethod: text("token_endpoint_auth_method").notNull(),
  grantTypes: jsonb("grant_types").$type<string[]>().notNull(),
  responseTypes: jsonb("response_types").$type<string[]>().notNull(),
  scope: text("scope").notNull(),
  clientUri: text("client_uri"),
  logoUri: text("logo_uri"),
  tosUri: text("tos_uri"),
  policyUri: text("policy_uri"),
  defaultSubType: text("default_sub_type").notNull(),
  ...timestamps(),
});

export const oauth2Codes = pgTable("oauth2_codes", {
  id: id(),
  codeHash: text("code_hash").notNull().unique(),
  clientId: text("client_id")
    .notNull()
    .references(() => oauth2Clients.clientId, { onDelete: "cascade" }),
  userId: uuid("user_id")
    .notNull()
    .references(() => user.id, { onDelete: "cascade" }),
  /** Set for an organization grant (sub_type organization), null for a user grant. */
  organizationId: uuid("organization_id").references(() => organization.id, {
    onDelete: "cascade",
  }),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge"),
  codeChallengeMethod: text("code_challenge_method"),
  nonce: text("nonce"),
  expiresAt: tstz("expires_at").notNull(),
  usedAt: tstz("used_at"),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

export const oauth2Tokens = pgTable(
  "oauth2_tokens",
  {
    id: id(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauth2Clients.clientId, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id").references(() => organization.id, {
      onDelete: "cascade",
    }),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    accessTokenHash: text("access_token_hash").notNull(),
    refreshTokenHash: text("refresh_token_hash"),
    accessExpiresAt: tstz("access_expires_at").notNull(),
    refreshExpiresAt: tstz("refresh_expires_at"),
    revokedAt: tstz("revoked_at"),
    issuedAt: tstz("issued_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("oauth2_tokens_access_uq").on(t.accessTokenHash),
    uniqueIndex("oauth2_tokens_refresh_uq").on(t.refreshTokenHash),
    index("oauth2_tokens_client_idx").on(t.clientId),
  ],
);
