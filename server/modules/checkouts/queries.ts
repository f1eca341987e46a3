// Checkouts as other modules read them: one checkout in the scope, with what it
// sold (the seats module resolves a purchase from the checkout that made it).
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

// Custom field data is checked the same way wherever a purchase takes it (a draft order too).
export { customFieldIssues } from "./validate.ts";

export interface CheckoutOutcome {
  id: string;
  organizationId: string;
  status: repo.CheckoutRow["status"];
  customerId: string | null;
  subscriptionId: string | null;
  orderId: string | null;
}

export async function checkoutOutcome(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CheckoutOutcome | null> {
  const row = await repo.findCheckout(db, scope, id);
  if (!row) return null;
  const { organizationId, status, customerId, subscriptionId, orderId } = row;
  return { id: row.id, organizationId, status, customerId, subscriptionId, orderId };
}
