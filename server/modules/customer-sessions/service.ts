// Customer sessions: a seller (or its app, through the better-auth plugin) opens a one-hour session
// for one of its customers and hands the token or the portal URL to that customer. Resolving a
// till_cst_ bearer back to its customer is the customer portal's authentication.
import type { Request } from "express";
import type { Db, Tx } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import type { CustomerContext, CustomerResolver } from "../../lib/customer-context.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import type { CustomerOut } from "../customers/schemas.ts";
import { getCustomer } from "../customers/service.ts";
import { memberOfTeam } from "../members/queries.ts";
import { memberModelEnabled } from "../organizations/queries.ts";
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

/**
 * The customer a session is asked for. As Polar's CustomerSessionService._get_customer, one that
 * does not exist (or belongs to another organization) is a 422 on the field that named it.
 */
async function customerOf(
  deps: CustomerSessionDeps,
  ctx: AuthContext,
  input: CustomerSessionCreate,
): Promise<CustomerOut> {
  const [field, value, ref] =
    "customer_id" in input
      ? (["customer_id", input.customer_id, { id: input.customer_id }] as const)
      : ([
          "external_customer_id",
          input.external_customer_id,
          { externalId: input.external_customer_id },
        ] as const);
  try {
    return await getCustomer({ db: deps.db, clock: deps.clock }, ctx, ref);
  } catch (err) {
    if (!(err instanceof ResourceNotFound)) throw err;
    throw new RequestValidationError([
      { loc: ["body", field], msg: "Customer does not exist.", type: "value_error", input: value },
    ]);
  }
}

/**
 * With the member model on, a member named by member_id (else external_member_id) must be one of
 * the customer's, as Polar's _get_member_by_id / _get_member_by_external_id; with it off, Polar
 * ignores both, and so does till.
 */
async function checkMember(db: Db, customer: CustomerOut, input: CustomerSessionCreate) {
  const [field, value, ref] =
    input.member_id != null
      ? (["member_id", input.member_id, { id: input.member_id }] as const)
      : input.external_member_id != null
        ? ([
            "external_member_id",
            input.external_member_id,
            { externalId: input.external_member_id },
          ] as const)
        : [];
  if (!field) return;
  const scope = scopeOfResource({ organizationId: customer.organization_id });
  if (await memberOfTeam(db, scope, customer.id, ref)) return;
  throw new RequestValidationError([
    {
      loc: ["body", field],
      msg: "Member does not exist for this customer.",
      type: "value_error",
      input: value,
    },
  ]);
}

export async function createCustomerSession(
  deps: CustomerSessionDeps,
  ctx: AuthContext,
  input: CustomerSessionCreate,
) {
  const customer = await customerOf(deps, ctx, input);
  if (await memberModelEnabled(deps.db, customer.organization_id))
    await checkMember(deps.db, customer, input);
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

/** A mail's portal link: its token, recorded as a session only with the mail (recordMailSessions). */
export interface MailSession {
  organizationId: string;
  customerId: string;
  token: string;
}

export function newMailSession(organizationId: string, customerId: string): MailSession {
  return { organizationId, customerId, token: newToken("till_cst_") };
}

/**
 * Records mails' sessions, in the transaction that records the mails (Mailer.send's `recorded`),
 * in one statement: a job that runs again finds its mails written and opens no second session.
 */
export async function recordMailSessions(
  tx: Tx,
  clock: Clock,
  sessions: MailSession[],
): Promise<void> {
  const now = clock.now();
  await repo.insertSessions(
    tx,
    sessions.map((session) => ({
      organizationId: session.organizationId,
      customerId: session.customerId,
      tokenHash: hashToken(session.token),
      returnUrl: null,
      expiresAt: new Date(now.getTime() + MAIL_SESSION_TTL_MS),
      createdAt: now,
    })),
  );
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
