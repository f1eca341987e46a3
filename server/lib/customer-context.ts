// Who is calling the customer portal: one customer of one organization, authenticated by a
// customer session token (till_cst_…). Kept apart from the seller's AuthContext on purpose: a
// customer token carries no scopes and no organizations, so it can never pass a seller guard, and
// a seller token never reaches a portal route.
import type { Request, RequestHandler } from "express";
import type { AuthContext } from "./auth-context.ts";
import { Unauthorized } from "./errors.ts";

export interface CustomerContext {
  sessionId: string;
  customerId: string;
  organizationId: string;
}

export type CustomerResolver = (req: Request) => Promise<CustomerContext | null>;

declare module "express-serve-static-core" {
  interface Request {
    customer?: CustomerContext;
  }
}

/** Middleware for /v1/customer-portal routes: a live customer session or 401. */
export function createCustomerGuard(resolve: CustomerResolver): RequestHandler {
  return async (req, _res, next) => {
    req.customer ??= (await resolve(req)) ?? undefined;
    if (!req.customer) throw new Unauthorized();
    next();
  };
}

export function customerOf(req: Request): CustomerContext {
  if (!req.customer) throw new Unauthorized();
  return req.customer;
}

/**
 * The seller-side view of one organization, used only to call the seller services (subscriptions,
 * orders, customers) on a customer's behalf after the portal has scoped the request to that
 * customer's own rows. It never leaves the server and carries no scopes.
 */
export function organizationView(ctx: CustomerContext): AuthContext {
  return {
    kind: "organization",
    userId: null,
    organizationIds: [ctx.organizationId],
    scopes: new Set(),
    tokenId: null,
  };
}
