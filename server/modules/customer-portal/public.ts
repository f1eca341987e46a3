// GET /v1/customer-portal/organizations/{slug}: what anyone may see of a seller before signing in to
// its portal (no token): the organization and its public, unarchived products.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { parseParams } from "../../lib/validation.ts";
import { organizationIdBySlug, organizationSummary } from "../organizations/service.ts";
import { productListQuery } from "../products/schemas.ts";
import { listProducts } from "../products/service.ts";
import { customerOrganizationOut, portalProductOut } from "./schemas.ts";

export interface PublicPortalDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
}

const slugParams = z.object({ slug: z.string().min(1).max(256) });
const PRODUCTS_SHOWN = 100;

export async function organizationData(deps: PublicPortalDeps, slug: string) {
  const id = await organizationIdBySlug(deps.db, slug);
  if (!id) throw new ResourceNotFound("Organization not found.");
  const organization = customerOrganizationOut(await organizationSummary(deps.db, id));
  // Read as the organization itself would list them, limited to what its public pages show.
  const products = await listProducts(
    deps,
    {
      kind: "organization",
      userId: null,
      organizationIds: [id],
      scopes: new Set(),
      tokenId: null,
    },
    productListQuery.parse({ is_archived: "false", visibility: "public" }),
    {},
    { page: 1, limit: PRODUCTS_SHOWN },
  );
  return { organization, products: products.items.map((p) => portalProductOut(p, organization)) };
}

export function customerPortalPublicRouter(deps: PublicPortalDeps): Router {
  const r = apiRouter();
  r.get("/customer-portal/organizations/:slug", async (req, res) => {
    res.json(await organizationData(deps, parseParams(slugParams, req).slug));
  });
  return r;
}
