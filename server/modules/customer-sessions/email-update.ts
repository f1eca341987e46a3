// A customer changes their email address from the portal (Polar's customers/me/email-update): the
// new address gets a till_cev_ link valid for 30 minutes; following it (check, then verify) makes it
// the customer's verified email, tells the old address, and opens a new customer session. A second
// request replaces the first; a link works once.
import { z } from "zod";
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";
import { changeToVerifiedEmail } from "../customers/service.ts";
import { customersByIds } from "../customers/queries.ts";
import type { Mailer } from "../email/mailer.ts";
import * as repo from "./repository.ts";
import { openBuyerSession } from "./service.ts";

const TTL_MS = 30 * 60_000;

export interface EmailUpdateDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  mailer: Mailer | null;
}

export const emailUpdateRequest = z.object({ email: z.email().max(320) }).strict();
export const emailUpdateVerify = z.object({ token: z.string().min(1).max(200) }).strict();

class InvalidEmailUpdate extends ApiError {
  constructor() {
    super(
      401,
      "InvalidCustomerEmailUpdate",
      "This email update request is invalid or has expired.",
    );
  }
}

export async function requestEmailUpdate(
  deps: EmailUpdateDeps,
  ctx: CustomerContext,
  email: string,
): Promise<void> {
  const [customer] = await customersByIds(deps.db, scopeOfCustomer(ctx), [ctx.customerId]);
  if (!customer) throw new InvalidEmailUpdate();
  if (customer.email.toLowerCase() === email.toLowerCase())
    throw RequestValidationError.field(
      ["body", "email"],
      "New email is the same as your current email.",
    );
  const token = newToken("till_cev_");
  const now = deps.clock.now();
  await repo.replaceEmailVerification(deps.db, {
    organizationId: ctx.organizationId,
    customerId: ctx.customerId,
    email,
    tokenHash: hashToken(token),
    expiresAt: new Date(now.getTime() + TTL_MS),
    createdAt: now,
  });
  await deps.mailer?.send({
    kind: "customer-email-update",
    to: email,
    subject: "Verify your new email address",
    text: "Confirm that this address should replace the one on your account. The link works for 30 minutes.",
    link: `${deps.baseUrl}/portal/verify-email?token=${encodeURIComponent(token)}`,
  });
}

export async function checkEmailUpdate(deps: EmailUpdateDeps, token: string): Promise<void> {
  const live = await repo.lockLiveEmailVerification(deps.db, hashToken(token), deps.clock.now());
  if (!live) throw new InvalidEmailUpdate();
}

/** Makes the new address the customer's; returns a new customer session token. */
export async function verifyEmailUpdate(deps: EmailUpdateDeps, token: string): Promise<string> {
  const outcome = await inTransaction(deps.db, async (tx) => {
    const live = await repo.lockLiveEmailVerification(tx, hashToken(token), deps.clock.now());
    if (!live) return { kind: "invalid" as const };
    await repo.deleteEmailVerification(tx, live.id);
    const changed = await changeToVerifiedEmail(
      tx,
      deps.clock,
      { organizationId: live.organizationId, id: live.customerId },
      live.email,
    );
    if (!changed) return { kind: "taken" as const };
    return { kind: "changed" as const, live, previous: changed.previous };
  });
  if (outcome.kind === "invalid") throw new InvalidEmailUpdate();
  if (outcome.kind === "taken")
    // The request is used up either way (as Polar): the customer asks again with another address.
    throw RequestValidationError.field(["body", "token"], "This email address is already in use.");
  const { live, previous } = outcome;
  await deps.mailer?.send({
    kind: "customer-email-changed",
    to: previous,
    subject: "Your email address has been changed",
    text: `The email address on your account is now ${live.email}. If you did not make this change, contact the seller.`,
  });
  return openBuyerSession(deps, live.organizationId, live.customerId);
}
