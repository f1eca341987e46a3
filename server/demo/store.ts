// The demo store: a seller's app as a seller would write it, with better-auth for its own users and
// till's better-auth plugin (integrations/better-auth) for checkout, customer state and the portal,
// talking to this same till server over HTTP with the demo organization's access token. Loaded on
// the first request to /demo, so `till dev` pays nothing for it at start.
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { toNodeHandler } from "better-auth/node";
import { Router } from "express";
import type { Db } from "../../db/client.ts";
import { till } from "../../integrations/better-auth/server.ts";
import { webDist } from "../web.ts";
import type { DemoSeed } from "./seed.ts";
import { demoAuthTables, ensureDemoTables } from "./schema.ts";

export interface DemoDeps {
  db: Db;
  baseUrl: string;
  authSecret: string;
  /** Seeded while the server starts; the store waits for it. */
  seed: Promise<DemoSeed>;
}

interface TillProduct {
  id: string;
  name: string;
  description: string | null;
  recurring_interval: string | null;
  metadata: Record<string, unknown>;
  prices: {
    amount_type: string;
    price_amount?: number;
    price_currency?: string;
    is_archived: boolean;
  }[];
}

export async function createDemoStore(deps: DemoDeps): Promise<Router> {
  const seed = await deps.seed;
  await ensureDemoTables(deps.db);
  const auth = betterAuth({
    appName: "till demo store",
    baseURL: deps.baseUrl,
    basePath: "/demo/api/auth",
    secret: createHmac("sha256", deps.authSecret)
      .update("till demo store sessions")
      .digest("base64url"),
    database: drizzleAdapter(deps.db, { provider: "pg", schema: demoAuthTables }),
    emailAndPassword: { enabled: true },
    // Its own cookie names: till's dashboard session lives on the same origin.
    advanced: { cookiePrefix: "till-demo" },
    logger: { disabled: true },
    plugins: [
      till({
        serverUrl: deps.baseUrl,
        accessToken: seed.accessToken,
        products: seed.products,
        createCustomerOnSignUp: true,
        authenticatedUsersOnly: true,
        successUrl: "/demo?checkout_id={CHECKOUT_ID}",
        returnUrl: "/demo",
        portalReturnUrl: `${deps.baseUrl}/demo`,
      }),
    ],
  });
  const authHandler = toNodeHandler(auth);

  const r = Router();
  r.get("/", (_req, res) => {
    const file = path.join(webDist, "demo.html");
    res.setHeader("cache-control", "no-cache");
    if (!existsSync(file))
      return void res
        .status(503)
        .type("text/plain")
        .send("The demo page has not been built: run npm run build:web");
    res.type("html").send(readFileSync(file, "utf8"));
  });
  // better-auth's node adapter rebuilds the full path (/demo/api/auth/...) from Express's baseUrl.
  r.all("/api/auth/*splat", (req, res) => void authHandler(req, res));
  // The catalog, live from till: what the seller's app would render on its pricing page.
  r.get("/api/products", async (_req, res) => {
    const url = new URL(`${deps.baseUrl}/v1/products/`);
    url.searchParams.set("is_archived", "false");
    url.searchParams.set("limit", "100");
    const answer = await fetch(url, { headers: { authorization: `Bearer ${seed.accessToken}` } });
    if (!answer.ok)
      return void res.status(502).json({ error: `till answered HTTP ${answer.status}` });
    const { items } = (await answer.json()) as { items: TillProduct[] };
    const bySlug = new Map(seed.products.map((p) => [p.productId, p.slug]));
    res.json(
      items.flatMap((p) => {
        const slug = bySlug.get(p.id);
        const price = p.prices.find((x) => !x.is_archived && x.amount_type === "fixed");
        if (!slug || !price) return [];
        return [
          {
            slug,
            id: p.id,
            name: p.name,
            description: p.description,
            recurring_interval: p.recurring_interval,
            price_amount: price.price_amount ?? 0,
            price_currency: price.price_currency ?? "usd",
          },
        ];
      }),
    );
  });
  return r;
}
