// POST /v1/sandbox/confirmation-tokens: the sandbox's stand-in for Stripe's confirmation tokens.
// Public like Stripe's publishable-key calls, and only in sandbox mode.
import { Router } from "express";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { parseBody } from "../../lib/validation.ts";
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
  const r = Router();
  r.post("/sandbox/confirmation-tokens", async (req, res) => {
    if (deps.mode !== "sandbox")
      throw new ResourceNotFound("The sandbox processor is not available in production mode.");
    const { card } = parseBody(tokenCreate, req);
    res.status(201).json(await createConfirmationToken(deps.db, deps.clock, card));
  });
  return r;
}
