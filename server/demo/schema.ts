// better-auth's four core tables (user, session, account, verification) for a seller's own app: the
// demo store keeps them in their own PostgreSQL schema (`till_demo`) of till's database, so its
// users never mix with till's; the seller-app test helper keeps them in a PGlite of its own. They
// are created on first use with `create ... if not exists`: sandbox data, outside till's migrations.
import { sql } from "drizzle-orm";
import { boolean, pgSchema, text, timestamp, type PgTableFn } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export function coreAuthTables<S extends string | undefined>(table: PgTableFn<S>) {
  return {
    user: table("user", {
      id: text("id").primaryKey(),
      name: text("name").notNull(),
      email: text("email").notNull().unique(),
      emailVerified: boolean("email_verified").notNull().default(false),
      image: text("image"),
      createdAt: ts("created_at").notNull(),
      updatedAt: ts("updated_at").notNull(),
    }),
    session: table("session", {
      id: text("id").primaryKey(),
      expiresAt: ts("expires_at").notNull(),
      token: text("token").notNull().unique(),
      createdAt: ts("created_at").notNull(),
      updatedAt: ts("updated_at").notNull(),
      ipAddress: text("ip_address"),
      userAgent: text("user_agent"),
      userId: text("user_id").notNull(),
    }),
    account: table("account", {
      id: text("id").primaryKey(),
      accountId: text("account_id").notNull(),
      providerId: text("provider_id").notNull(),
      userId: text("user_id").notNull(),
      accessToken: text("access_token"),
      refreshToken: text("refresh_token"),
      idToken: text("id_token"),
      accessTokenExpiresAt: ts("access_token_expires_at"),
      refreshTokenExpiresAt: ts("refresh_token_expires_at"),
      scope: text("scope"),
      password: text("password"),
      createdAt: ts("created_at").notNull(),
      updatedAt: ts("updated_at").notNull(),
    }),
    verification: table("verification", {
      id: text("id").primaryKey(),
      identifier: text("identifier").notNull(),
      value: text("value").notNull(),
      expiresAt: ts("expires_at").notNull(),
      createdAt: ts("created_at").notNull(),
      updatedAt: ts("updated_at").notNull(),
    }),
  };
}

/** The statements creating the tables above, in `schema` (e.g. `till_demo.`) or unqualified (""). */
export function coreAuthDdl(schema: string): string[] {
  const q = schema ? `${schema}.` : "";
  return [
    ...(schema ? [`create schema if not exists ${schema}`] : []),
    `create table if not exists ${q}"user" (id text primary key, name text not null, email text not null unique, email_verified boolean not null default false, image text, created_at timestamptz not null, updated_at timestamptz not null)`,
    `create table if not exists ${q}session (id text primary key, expires_at timestamptz not null, token text not null unique, created_at timestamptz not null, updated_at timestamptz not null, ip_address text, user_agent text, user_id text not null references ${q}"user"(id) on delete cascade)`,
    `create table if not exists ${q}account (id text primary key, account_id text not null, provider_id text not null, user_id text not null references ${q}"user"(id) on delete cascade, access_token text, refresh_token text, id_token text, access_token_expires_at timestamptz, refresh_token_expires_at timestamptz, scope text, password text, created_at timestamptz not null, updated_at timestamptz not null)`,
    `create table if not exists ${q}verification (id text primary key, identifier text not null, value text not null, expires_at timestamptz not null, created_at timestamptz not null, updated_at timestamptz not null)`,
  ];
}

const DEMO_SCHEMA = "till_demo";
export const demoAuthTables = coreAuthTables(pgSchema(DEMO_SCHEMA).table);

export async function ensureDemoTables(db: Db): Promise<void> {
  for (const statement of coreAuthDdl(DEMO_SCHEMA)) await db.execute(sql.raw(statement));
}
