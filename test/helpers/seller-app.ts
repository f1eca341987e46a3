// A seller's own web app for integration tests: better-auth on an in-memory PGlite (its four core
// tables created here), email/password sign-up with a fast test hasher, the plugins under test,
// served over real HTTP at /api/auth/*, plus optional extra routes (pages, static files).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { betterAuth, type BetterAuthPlugin } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { toNodeHandler } from "better-auth/node";
import { drizzle } from "drizzle-orm/pglite";
import { boolean, pgTable, text, timestamp } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});
const session = pgTable("session", {
  id: text("id").primaryKey(),
  expiresAt: ts("expires_at").notNull(),
  token: text("token").notNull().unique(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
  ipAddress: text("ip_address"),
  userAgent: text("user_agent"),
  userId: text("user_id").notNull(),
});
const account = pgTable("account", {
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
});
const verification = pgTable("verification", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

const DDL = `
create table "user" (id text primary key, name text not null, email text not null unique, email_verified boolean not null default false, image text, created_at timestamptz not null, updated_at timestamptz not null);
create table "session" (id text primary key, expires_at timestamptz not null, token text not null unique, created_at timestamptz not null, updated_at timestamptz not null, ip_address text, user_agent text, user_id text not null references "user"(id) on delete cascade);
create table "account" (id text primary key, account_id text not null, provider_id text not null, user_id text not null references "user"(id) on delete cascade, access_token text, refresh_token text, id_token text, access_token_expires_at timestamptz, refresh_token_expires_at timestamptz, scope text, password text, created_at timestamptz not null, updated_at timestamptz not null);
create table "verification" (id text primary key, identifier text not null, value text not null, expires_at timestamptz not null, created_at timestamptz not null, updated_at timestamptz not null);
`;

export type ExtraRoute = (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;

export interface SellerApp {
  url: string;
  close(): Promise<void>;
}

/** Starts the app; `plugins` receives the app's own URL (known only once the port is bound). */
export async function startSellerApp(plugins: (url: string) => BetterAuthPlugin[], extra?: ExtraRoute): Promise<SellerApp> {
  const pg = new PGlite();
  await pg.exec(DDL);
  const db = drizzle(pg);
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer(async (req, res) => {
    if (req.url?.startsWith("/api/auth/") && handler) return handler(req, res);
    if (extra && (await extra(req, res))) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = betterAuth({
    baseURL: url,
    secret: "seller-app-test-secret-0123456789abcdef",
    database: drizzleAdapter(db, { provider: "pg", schema: { user, session, account, verification } }),
    emailAndPassword: { enabled: true, password: { hash: async (p) => `plain:${p}`, verify: async ({ hash, password }) => hash === `plain:${password}` } },
    user: { deleteUser: { enabled: true } },
    rateLimit: { enabled: false },
    logger: { disabled: true },
    plugins: plugins(url),
  });
  handler = toNodeHandler(auth);
  return {
    url,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await pg.close();
    },
  };
}

/** A cookie-keeping caller of the seller app, as the seller's browser would be. */
export function sellerAppClient(url: string) {
  let cookie = "";
  return {
    async call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
      const res = await fetch(`${url}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: { origin: url, ...(cookie ? { cookie } : {}), ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
        ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
      });
      const set = res.headers.getSetCookie().map((c) => c.split(";")[0]!).filter((c) => !c.endsWith("="));
      if (set.length) cookie = set.join("; ");
      const text = await res.text();
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      return { status: res.status, body };
    },
  };
}
