// What a checkout asks about a buyer's subscriptions before it sells another: whether one is still
// to be paid for (allow_multiple_subscriptions) and whether a trial was had (prevent_trial_abuse);
// and what a card's removal asks: which of them still need a card.
import { and, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import {
  customers,
  paymentMethods,
  productPrices,
  subscriptions,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";

const inScope = (scope: OrgScope) => inArray(subscriptions.organizationId, [...scope]);

/** Whether a billable (active, trialing, past_due) subscription is the customer's, or by email. */
export async function hasBillable(
  db: Db,
  scope: OrgScope,
  who: { customerId: string } | { email: string },
): Promise<boolean> {
  if (scope.length === 0) return false;
  const whose =
    "customerId" in who
      ? eq(subscriptions.customerId, who.customerId)
      : inArray(
          subscriptions.customerId,
          db
            .select({ id: customers.id })
            .from(customers)
            .where(
              sql`lower(${customers.email}) = lower(${who.email}) and ${customers.deletedAt} is null`,
            ),
        );
  const billable = inArray(subscriptions.status, ["active", "trialing", "past_due"]);
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(inScope(scope), billable, whose))
    .limit(1);
  return row !== undefined;
}

/**
 * Whether any subscription of a customer with this email (its +alias ignored, in any case), or of
 * a customer who saved the card of this fingerprint, had a trial; deleted customers and cards
 * count too.
 */
export async function hadTrial(
  db: Db,
  scope: OrgScope,
  who: { email: string; fingerprint: string | null },
): Promise<boolean> {
  if (scope.length === 0) return false;
  const unaliased = sql`lower(regexp_replace(${customers.email}, '\\+[^@]*@', '@'))`;
  const sameCard = who.fingerprint
    ? sql`exists (select 1 from ${paymentMethods} pm
        where pm.organization_id = ${subscriptions.organizationId}
          and pm.customer_id = ${subscriptions.customerId}
          and pm.fingerprint = ${who.fingerprint})`
    : sql`false`;
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .innerJoin(customers, eq(customers.id, subscriptions.customerId))
    .where(
      and(
        inScope(scope),
        isNotNull(subscriptions.trialStart),
        or(sql`${unaliased} = lower(regexp_replace(${who.email}, '\\+[^@]*@', '@'))`, sameCard),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Whether a subscription of the organization with a price above zero is still running. */
export async function anyRunningPaid(db: Db, scope: OrgScope): Promise<boolean> {
  const running = inArray(subscriptions.status, ["trialing", "active", "past_due", "paused"]);
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(inScope(scope), running, sql`${subscriptions.amount} > 0`))
    .limit(1);
  return row !== undefined;
}

/**
 * The customer's subscriptions that still need a card to be billed, as Polar's
 * `requires_payment_method`: paused with a resume scheduled, past due, or active or trialing
 * unless set to cancel (then only if usage is still to be billed). A free one with no usage price
 * bills nothing and needs none.
 */
export async function needingCard(db: Db, scope: OrgScope, customerId: string): Promise<string[]> {
  if (scope.length === 0) return [];
  const metered = sql`exists (select 1 from ${productPrices} p
    where p.id = any(${subscriptions.priceIds}) and p.amount_type = 'metered_unit')`;
  const rows = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        inScope(scope),
        eq(subscriptions.customerId, customerId),
        or(sql`${subscriptions.amount} > 0`, metered),
        or(
          and(eq(subscriptions.status, "paused"), isNotNull(subscriptions.resumesAt)),
          eq(subscriptions.status, "past_due"),
          and(
            inArray(subscriptions.status, ["active", "trialing"]),
            or(eq(subscriptions.cancelAtPeriodEnd, false), metered),
          ),
        ),
      ),
    );
  return rows.map((r) => r.id);
}
