// What a checkout asks about a buyer's subscriptions before it sells another: whether one is still
// to be paid for (allow_multiple_subscriptions) and whether a trial was had (prevent_trial_abuse).
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customers, subscriptions } from "../../../db/schema/index.ts";
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
 * Whether any subscription of a customer with this email, its +alias ignored and in any case, had
 * a trial; customers since deleted count too.
 */
export async function hadTrial(db: Db, scope: OrgScope, email: string): Promise<boolean> {
  if (scope.length === 0) return false;
  const unaliased = sql`lower(regexp_replace(${customers.email}, '\\+[^@]*@', '@'))`;
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .innerJoin(customers, eq(customers.id, subscriptions.customerId))
    .where(
      and(
        inScope(scope),
        isNotNull(subscriptions.trialStart),
        sql`${unaliased} = lower(regexp_replace(${email}, '\\+[^@]*@', '@'))`,
      ),
    )
    .limit(1);
  return row !== undefined;
}
