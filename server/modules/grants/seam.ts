// Where purchases meet benefit grants. Granting on a paid order or an active subscription and
// revoking when a subscription ends belong to the grants module; until it lands these do nothing,
// and every caller already runs them inside the transaction of the change that triggers them.
import type { Db } from "../../../db/client.ts";

export async function grantBenefitsForOrder(_tx: Db, _order: { id: string; customerId: string; productId: string | null; subscriptionId: string | null }): Promise<void> {}

export async function revokeBenefitsForSubscription(_tx: Db, _subscription: { id: string; customerId: string; productId: string }): Promise<void> {}
