// A checkout's `subscription_id`: the free subscription it upgrades (subscriptions/upgrade.ts). At
// create the subscription must be the organization's, free and not canceled, and the checkout's
// customer is the subscription's (one named otherwise is refused). At confirm it is checked again
// before anything changes, and once more under the subscription's row lock when the session is
// claimed, together with no other session upgrading it being paid: one upgrade, one charge.
import type { Db, Tx } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { findCustomerForCheckout } from "../customers/buyers.ts";
import {
  lockUpgradeTarget,
  otherUpgradeClaimed,
  UPGRADE_REFUSALS,
  type UpgradeRefusal,
  type UpgradeTarget,
  upgradeTarget,
} from "../subscriptions/upgrade.ts";
import type { CheckoutRow } from "./repository.ts";
import type { CheckoutCreate } from "./schemas.ts";

const refused = (field: string, msg: string) =>
  RequestValidationError.field(["body", field], msg, "value_error");

function targetOrThrow(found: UpgradeTarget | UpgradeRefusal): UpgradeTarget {
  if (typeof found === "string") throw refused("subscription_id", UPGRADE_REFUSALS[found]);
  return found;
}

/** The subscription a new checkout upgrades and its customer, who becomes the checkout's. */
export async function upgradeOf(db: Db, scope: OrgScope, input: CheckoutCreate) {
  const target = targetOrThrow(await upgradeTarget(db, scope, input.subscription_id!));
  if (input.customer_id && input.customer_id !== target.customerId)
    throw refused("customer_id", "The subscription belongs to another customer.");
  const customer = await findCustomerForCheckout(db, scope, {
    id: target.customerId,
    externalId: null,
  });
  if (!customer) throw refused("subscription_id", UPGRADE_REFUSALS.not_found);
  if (input.external_customer_id && input.external_customer_id !== customer.externalId)
    throw refused("external_customer_id", "The subscription belongs to another customer.");
  return { subscriptionId: target.id, customer };
}

/** Before a confirm changes anything: the subscription may still be upgraded by this session. */
export async function assertUpgradable(db: Db, row: CheckoutRow): Promise<void> {
  // Once paid, the column names the subscription the session made or upgraded: a second confirm
  // is refused as any confirm of a closed session is, not as an upgrade.
  if (!row.subscriptionId || row.status !== "open") return;
  targetOrThrow(await upgradeTarget(db, scopeOfResource(row), row.subscriptionId));
  if (await otherClaim(db, row)) throw upgradeUnderWay();
}

/** In the claim's transaction: the subscription locked, then checked as above. */
export async function claimUpgrade(tx: Tx, row: CheckoutRow): Promise<void> {
  if (!row.subscriptionId) return;
  targetOrThrow(await lockUpgradeTarget(tx, scopeOfResource(row), row.subscriptionId));
  if (await otherClaim(tx, row)) throw upgradeUnderWay();
}

/** Another session upgrading the same subscription is claimed for payment. */
const otherClaim = (db: Db, row: CheckoutRow) =>
  otherUpgradeClaimed(db, { id: row.subscriptionId!, organizationId: row.organizationId }, row.id);

function upgradeUnderWay() {
  return refused(
    "subscription_id",
    "Another checkout is upgrading this subscription: wait for its payment to settle.",
  );
}
