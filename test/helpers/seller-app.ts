// A seller's own web app for integration tests: better-auth on an in-memory PGlite (its four core
// tables, the same as the demo store's), email/password sign-up with a fast test hasher, the plugins
// under test, served over real HTTP at /api/auth/*, plus optional extra routes (pages, static files).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { betterAuth, type BetterAuthPlugin } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { toNodeHandler } from "better-auth/node";
import { drizzle } from "drizzle-orm/pglite";
import { pgTable } from "drizzle-orm/pg-core";
import { coreAuthDdl, coreAuthTables } from "../../server/demo/schema.ts";

const tables = coreAuthTables(pgTable);
const DDL = coreAuthDdl("").join(";\n");

export type ExtraRoute = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
) => boolean | Promise<boolean>;

export interface SellerApp {
  url: string;
  close(): Promise<void>;
}

/** Starts the app; `plugins` receives the app's own URL (known only once the port is bound). */
export async function startSellerApp(
  plugins: (url: string) => BetterAuthPlugin[],
  extra?: ExtraRoute,
): Promise<SellerApp> {
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
    database: drizzleAdapter(db, { provider: "pg", schema: tables }),
    emailAndPassword: {
      enabled: true,
      password: {
        hash: async (p) => `plain:${p}`,
        verify: async ({ hash, password }) => hash === `plain:${password}`,
      },
    },
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
    async call(
      path: string,
      init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
    ) {
      const res = await fetch(`${url}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: {
          origin: url,
          ...(cookie ? { cookie } : {}),
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...init.headers,
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
      });
      const set = res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .filter((c) => !c.endsWith("="));
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
