// Customer sessions: a seller (or its app, through the better-auth plugin) opens a one-hour session
// for one of its customers and hands the token or the portal URL to that customer. Resolving a
// till_cst_ bearer back to its customer is the customer portal's authentication.
import type { Request } from "express";
import type { Db } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import type { CustomerContext, CustomerResolver } from "../../lib/customer-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { getCustomer } from "../customers/service.ts";
import * as repo from "./repository.ts";
import {
  customerSessionOut,
  type CustomerCustomerSessionOut,
  type CustomerSessionCreate,
} from "./schemas.ts";

export const SESSION_TTL_MS = 60 * 60 * 1000;

export interface CustomerSessionDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
}

/** Where a customer session opens the portal page; the page reads the token from the query. */
export function portalUrlFor(baseUrl: string, token: string): string {
  return `${baseUrl}/portal?customer_session_token=${encodeURIComponent(token)}`;
}

export async function createCustomerSession(
  deps: CustomerSessionDeps,
  ctx: AuthContext,
  input: CustomerSessionCreate,
) {
  // A customer of another organization, or one that does not exist, is a 404 (never a 403).
  const customer = await getCustomer(
    { db: deps.db, clock: deps.clock },
    ctx,
    "customer_id" in input ? { id: input.customer_id } : { externalId: input.external_customer_id },
  );
  const token = newToken("till_cst_");
  const now = deps.clock.now();
  const row = await repo.insertSession(deps.db, {
    organizationId: customer.organization_id,
    customerId: customer.id,
    tokenHash: hashToken(token),
    returnUrl: input.return_url ?? null,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    createdAt: now,
  });
  return customerSessionOut(row, token, portalUrlFor(deps.baseUrl, token), customer);
}

/**
 * How long a portal link in a mail (a receipt, a failed payment) signs the customer in: past the
 * next payment retry (retries are days apart), so the card can be changed from the mail until then.
 */
export const MAIL_SESSION_TTL_MS = 8 * 86_400_000;

/**
 * A session for the buyer who just paid, so the confirmation page can show the order and its
 * benefits (Polar's CheckoutPublicConfirmed.customer_session_token). Returns the token.
 */
export async function openBuyerSession(
  deps: Pick<CustomerSessionDeps, "db" | "clock">,
  organizationId: string,
  customerId: string,
  ttlMs = SESSION_TTL_MS,
): Promise<string> {
  const token = newToken("till_cst_");
  const now = deps.clock.now();
  await repo.insertSession(deps.db, {
    organizationId,
    customerId,
    tokenHash: hashToken(token),
    returnUrl: null,
    expiresAt: new Date(now.getTime() + ttlMs),
    createdAt: now,
  });
  return token;
}

/** till_cst_ bearer → the customer it was opened for, while it lives and the customer is not deleted. */
export function createCustomerResolver(
  deps: Pick<CustomerSessionDeps, "db" | "clock">,
): CustomerResolver {
  return async (req: Request): Promise<CustomerContext | null> => {
    if (!req.bearer?.startsWith("till_cst_")) return null;
    const session = await repo.findLiveByHash(deps.db, hashToken(req.bearer), deps.clock.now());
    if (!session) return null;
    const view: AuthContext = {
      kind: "organization",
      userId: null,
      organizationIds: [session.organizationId],
      scopes: new Set(),
      tokenId: null,
    };
    const alive = await getCustomer({ db: deps.db, clock: deps.clock }, view, {
      id: session.customerId,
    }).catch((err: unknown) => {
      if (err instanceof ResourceNotFound) return null;
      throw err;
    });
    if (!alive || alive.deleted_at) return null;
    return {
      sessionId: session.id,
      customerId: session.customerId,
      organizationId: session.organizationId,
    };
  };
}

/** The session a portal request came with (already resolved, so it exists): its expiry and return URL. */
export async function customerSessionSummary(
  db: Db,
  sessionId: string,
): Promise<CustomerCustomerSessionOut> {
  const row = await repo.findById(db, sessionId);
  if (!row) throw new ResourceNotFound("Customer session not found.");
  return { expires_at: row.expiresAt.toISOString(), return_url: row.returnUrl };
}
