// A subscription that moved to another product (a plan change applied now, or a next_period one at
// its renewal) switches its benefits with it, as Polar's enqueue_benefits_grants: the grants of
// benefits the new product lacks are revoked, the new product's benefits granted to the buyer and
// the holders of its claimed seats, and a benefit both products have keeps its grant. Written in the
// change's transaction; the grant jobs record benefit_grant.* and customer.state_changed.
import type { Tx } from "../../../db/client.ts";
import { type GrantQueueDeps, revokeBenefitsOutsideProduct } from "../grants/seam.ts";
import { restoreBenefits } from "./grace.ts";

export async function switchBenefits(
  tx: Tx,
  deps: GrantQueueDeps,
  moved: {
    id: string;
    organizationId: string;
    customerId: string;
    productId: string;
    status: string;
  },
): Promise<void> {
  await revokeBenefitsOutsideProduct(tx, deps, moved, moved.productId);
  // As Polar, only a subscription in force is granted anything: a past_due one gets the new
  // product's benefits when it is paid (restoreBenefits at the retry).
  if (moved.status === "active" || moved.status === "trialing")
    await restoreBenefits(tx, deps, moved, null);
}
