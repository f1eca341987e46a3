// /v1/checkout-links and the public /buy/{client_secret} that opens a session from a link.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import type { CheckoutDeps } from "../checkouts/service.ts";
import { buyQuery, linkCreate, linkListQuery, linkUpdate } from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });
const buyParams = z.object({ clientSecret: z.string() });
const PREFILL = new Set(Object.keys(buyQuery.shape));

export function checkoutLinksRouter(deps: CheckoutDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/checkout-links", "/checkout-links/"], guard("checkout_links:read"), async (req, res) => {
    res.json(
      await service.listLinks(
        deps,
        authOf(req),
        parseQuery(linkListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.post(
    ["/checkout-links", "/checkout-links/"],
    guard("checkout_links:write"),
    async (req, res) => {
      res.status(201).json(await service.createLink(deps, authOf(req), parseBody(linkCreate, req)));
    },
  );
  r.get("/checkout-links/:id", guard("checkout_links:read"), async (req, res) => {
    res.json(await service.getLink(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.patch("/checkout-links/:id", guard("checkout_links:write"), async (req, res) => {
    res.json(
      await service.updateLink(
        deps,
        authOf(req),
        parseParams(idParams, req).id,
        parseBody(linkUpdate, req),
      ),
    );
  });
  r.delete("/checkout-links/:id", guard("checkout_links:write"), async (req, res) => {
    await service.deleteLink(deps, authOf(req), parseParams(idParams, req).id);
    res.status(204).end();
  });
  return r;
}

export function buyRouter(deps: CheckoutDeps): Router {
  const r = apiRouter();
  r.get("/buy/:clientSecret", async (req, res) => {
    const prefill = parseQuery(buyQuery, req);
    const rest = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query))
      if (!PREFILL.has(k) && typeof v === "string") rest.append(k, v);
    res.redirect(
      303,
      await service.openLink(deps, parseParams(buyParams, req).clientSecret, prefill, rest),
    );
  });
  return r;
}
