// POST /v1/sandbox/confirmation-tokens: the sandbox's stand-in for Stripe's confirmation tokens
// (public like Stripe's publishable-key calls, and only in sandbox mode); /v1/payments.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { paymentListQuery } from "./schemas.ts";
import { getPayment, listPayments } from "./service.ts";
import { createConfirmationToken } from "./sandbox.ts";

const tokenCreate = z.object({
  card: z.object({
    number: z.string().regex(/^[\d\s-]{12,23}$/, "must be a card number"),
    exp_month: z.coerce.number().int().min(1).max(12),
    exp_year: z.coerce.number().int().min(0).max(2100),
    cvc: z.string().regex(/^\d{3,4}$/, "must be 3 or 4 digits"),
  }),
});

export function sandboxRouter(deps: {
  db: Db;
  clock: Clock;
  mode: "sandbox" | "production";
}): Router {
  const r = apiRouter();
  r.post("/sandbox/confirmation-tokens", async (req, res) => {
    if (deps.mode !== "sandbox")
      throw new ResourceNotFound("The sandbox processor is not available in production mode.");
    const { card } = parseBody(tokenCreate, req);
    res.status(201).json(await createConfirmationToken(deps.db, deps.clock, card));
  });
  return r;
}

export function paymentsRouter(deps: { db: Db }, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/payments", "/payments/"], guard("payments:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await listPayments(deps.db, authOf(req), parseQuery(paymentListQuery, req), page));
  });
  r.get("/payments/:id", guard("payments:read"), async (req, res) => {
    const { id } = parseParams(z.object({ id: z.uuid() }), req);
    res.json(await getPayment(deps.db, authOf(req), id));
  });
  return r;
}
