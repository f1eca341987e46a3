// /v1/customers: by id and by the seller's external id.
import type { Request } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import {
  customerCreate,
  customerListQuery,
  customerUpdate,
  customerUpdateByExternalId,
  deleteQuery,
} from "./schemas.ts";
import * as service from "./service.ts";
import type { CustomerDeps, CustomerRef } from "./service.ts";

const idParams = z.object({ id: z.uuid() });
const externalParams = z.object({ external_id: z.string().min(1) });

const byId = (req: Request): CustomerRef => parseParams(idParams, req);
const byExternalId = (req: Request): CustomerRef => ({
  externalId: parseParams(externalParams, req).external_id,
});

export function customersRouter(deps: CustomerDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("customers:read");
  const write = guard("customers:write");
  r.get(["/customers", "/customers/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listCustomers(
        deps,
        authOf(req),
        parseQuery(customerListQuery, req),
        metadataQuery(req),
        page,
      ),
    );
  });
  r.post(["/customers", "/customers/"], write, async (req, res) => {
    res
      .status(201)
      .json(await service.createCustomer(deps, authOf(req), parseBody(customerCreate, req)));
  });
  for (const [prefix, ref, update] of [
    ["/customers/external/:external_id", byExternalId, customerUpdateByExternalId],
    ["/customers/:id", byId, customerUpdate],
  ] as const) {
    r.get(prefix, read, async (req, res) => {
      res.json(await service.getCustomer(deps, authOf(req), ref(req)));
    });
    r.get(`${prefix}/state`, read, async (req, res) => {
      res.json(await service.getCustomerState(deps, authOf(req), ref(req)));
    });
    r.patch(prefix, write, async (req, res) => {
      const target = ref(req);
      res.json(await service.updateCustomer(deps, authOf(req), target, parseBody(update, req)));
    });
    r.delete(prefix, write, async (req, res) => {
      const target = ref(req);
      await service.deleteCustomer(
        deps,
        authOf(req),
        target,
        parseQuery(deleteQuery, req).anonymize,
      );
      res.status(204).end();
    });
  }
  return r;
}
