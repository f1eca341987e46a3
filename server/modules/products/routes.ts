// /v1/products
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import {
  productBenefitsUpdate,
  productCreate,
  productListQuery,
  productUpdate,
} from "./schemas.ts";
import { updateProductBenefits } from "./product-benefits.ts";
import * as service from "./service.ts";
import type { ProductDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function productsRouter(deps: ProductDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/products", "/products/"], guard("products:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listProducts(
        deps,
        authOf(req),
        parseQuery(productListQuery, req),
        metadataQuery(req),
        page,
      ),
    );
  });
  r.post(["/products", "/products/"], guard("products:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createProduct(deps, authOf(req), parseBody(productCreate, req)));
  });
  r.get("/products/:id", guard("products:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getProduct(deps, authOf(req), id));
  });
  r.patch("/products/:id", guard("products:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateProduct(deps, authOf(req), id, parseBody(productUpdate, req)));
  });
  r.delete("/products/:id", guard("products:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteProduct(deps, authOf(req), id);
    res.status(204).end();
  });
  r.post("/products/:id/benefits", guard("products:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { benefits } = parseBody(productBenefitsUpdate, req);
    res.json(await updateProductBenefits(deps, authOf(req), id, benefits));
  });
  return r;
}
