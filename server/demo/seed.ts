// The demo store's seller, seeded when `till dev` starts: a user owning the "Demo Store" organization,
// an organization access token and two products (a subscription granting a license key, and a
// one-time purchase). Idempotent: each piece is looked up first (the products by their `demo_slug`
// metadata), so a restart creates nothing new. The token is derived from the server's secret, so the
// same token is found again without ever being stored in clear.
import { createHmac } from "node:crypto";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { AuthContext } from "../lib/auth-context.ts";
import type { Clock } from "../lib/clock.ts";
import type { Scope } from "../lib/scopes.ts";
import type { Auth } from "../modules/auth/auth.ts";
import { benefitCreate } from "../modules/benefits/schemas.ts";
import { createBenefit } from "../modules/benefits/service.ts";
import { organizationCreate } from "../modules/organizations/schemas.ts";
import { createOrganization, organizationIdBySlug } from "../modules/organizations/service.ts";
import { productCreate, productListQuery } from "../modules/products/schemas.ts";
import { updateProductBenefits } from "../modules/products/product-benefits.ts";
import { createProduct, listProducts } from "../modules/products/service.ts";
import { ensureOrganizationToken } from "../modules/tokens/service.ts";

export const DEMO_ORGANIZATION_SLUG = "till-demo-store";
const OWNER_EMAIL = "owner@demo-store.till.localhost";
const TOKEN_SCOPES: Scope[] = [
  "products:read",
  "checkouts:write",
  "customers:write",
  "customer_sessions:write",
  "subscriptions:read",
  "orders:read",
  "benefits:read",
  "events:write",
  "meters:read",
];

const PRODUCTS = [
  {
    slug: "pro",
    create: {
      name: "Pro",
      description: "Everything in the demo app, billed monthly. Comes with a license key.",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
    },
    licenseKey: {
      type: "license_keys",
      description: "Pro license key",
      properties: { prefix: "DEMO" },
    },
  },
  {
    slug: "icons",
    create: {
      name: "Icon pack",
      description: "400 icons, yours to keep: a one-time purchase.",
      prices: [{ amount_type: "fixed", price_amount: 2900, price_currency: "usd" }],
    },
    licenseKey: null,
  },
] as const;

export interface DemoSeedDeps {
  db: Db;
  clock: Clock;
  auth: Auth;
  config: Readonly<Config>;
}

export interface DemoSeed {
  organizationId: string;
  accessToken: string;
  /** For the better-auth plugin's `products` option: checkout by slug. */
  products: { slug: string; productId: string }[];
}

export function demoAccessToken(authSecret: string): string {
  return `till_oat_${createHmac("sha256", authSecret).update("till demo store access token").digest("base64url")}`;
}

async function ensureOwner(auth: Auth): Promise<string> {
  const ctx = await auth.$context;
  const found = await ctx.internalAdapter.findUserByEmail(OWNER_EMAIL);
  if (found) return found.user.id;
  const user = await ctx.internalAdapter.createUser(
    { email: OWNER_EMAIL, name: "Demo Store owner", emailVerified: true },
    { method: "admin" },
  );
  return user.id;
}

export async function seedDemo(deps: DemoSeedDeps): Promise<DemoSeed> {
  let organizationId = await organizationIdBySlug(deps.db, DEMO_ORGANIZATION_SLUG);
  if (!organizationId) {
    const userId = await ensureOwner(deps.auth);
    const owner: AuthContext = {
      kind: "user",
      userId,
      organizationIds: [],
      scopes: new Set(),
      tokenId: null,
    };
    organizationId = (
      await createOrganization(
        deps,
        owner,
        organizationCreate.parse({ name: "Demo Store", slug: DEMO_ORGANIZATION_SLUG }),
      )
    ).id;
  }
  const accessToken = demoAccessToken(deps.config.authSecret);
  await ensureOrganizationToken(
    deps,
    organizationId,
    accessToken,
    "Demo store (till dev)",
    TOKEN_SCOPES,
  );

  const seller: AuthContext = {
    kind: "organization",
    userId: null,
    organizationIds: [organizationId],
    scopes: new Set(),
    tokenId: null,
  };
  const productDeps = { db: deps.db, clock: deps.clock, baseUrl: deps.config.baseUrl };
  const page = { page: 1, limit: 100 };
  const existing = await listProducts(
    productDeps,
    seller,
    productListQuery.parse({ is_archived: "false" }),
    { demo_slug: PRODUCTS.map((p) => p.slug) },
    page,
  );
  const products: DemoSeed["products"] = [];
  for (const p of PRODUCTS) {
    const found = existing.items.find((item) => item.metadata.demo_slug === p.slug);
    if (found) {
      products.push({ slug: p.slug, productId: found.id });
      continue;
    }
    const created = await createProduct(
      productDeps,
      seller,
      productCreate.parse({ ...p.create, metadata: { demo_slug: p.slug } }),
    );
    if (p.licenseKey) {
      const benefit = await createBenefit(
        { db: deps.db, clock: deps.clock, secret: deps.config.authSecret },
        seller,
        benefitCreate.parse(p.licenseKey),
      );
      await updateProductBenefits(productDeps, seller, created.id, [benefit.id]);
    }
    products.push({ slug: p.slug, productId: created.id });
  }
  return { organizationId, accessToken, products };
}
