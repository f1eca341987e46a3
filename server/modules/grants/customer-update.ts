// The customer's change to one of their grants from the portal (Polar's CustomerBenefitGrantUpdate).
// Only Discord and GitHub grants have something to change: which of the customer's linked accounts
// receives the benefit. A new account re-queues the grant, whose job gives the new account access
// and then takes it from the old one; every other type is answered as it is.
import { inTransaction, type Db } from "../../../db/client.ts";
import { NotPermitted, RequestValidationError } from "../../lib/errors.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import * as repo from "./repository.ts";
import type { CustomerGrantUpdate } from "./schemas.ts";
import {
  enqueue,
  type GrantQueueDeps,
  readableGrantOfCustomer,
  serializeGrants,
} from "./service.ts";

const PROVIDERS: Record<string, "discord" | "github"> = {
  discord: "discord",
  github_repository: "github",
};

export async function updateGrantOfCustomer(
  db: Db,
  deps: GrantQueueDeps,
  customer: { organizationId: string; customerId: string },
  id: string,
  input: CustomerGrantUpdate,
) {
  const row = await inTransaction(db, async (tx) => {
    // Locked with the readable rule re-checked, so a grant revoked meanwhile is a 404 as well.
    const grant = await readableGrantOfCustomer(tx, customer, id, true);
    const [benefit] = await benefitRowsByIds(tx, scopeOfResource(grant), [grant.benefitId]);
    // Queued for revocation (revoked_at not set yet): moving it would re-queue it as a grant.
    if (grant.pendingAction === "revoke")
      throw new NotPermitted("The benefit grant is revoked and cannot be updated.");
    if (benefit!.type !== input.benefit_type)
      throw RequestValidationError.field(
        ["body", "benefit_type"],
        `The grant is of a ${benefit!.type} benefit.`,
      );
    const provider = PROVIDERS[input.benefit_type];
    if (!provider || !("properties" in input) || !("account_id" in input.properties)) return grant;
    const accountId = input.properties.account_id;
    if (accountId !== null) {
      const [owner] = await customersByIds(tx, scopeOfResource(grant), [grant.customerId]);
      const linked = await repo.linkedAccounts(tx, owner?.email ?? "", provider);
      if (!linked.some((a) => a.accountId === accountId))
        throw RequestValidationError.field(
          ["body", "properties", "account_id"],
          "The account is not one the customer linked.",
        );
    }
    if ((grant.properties.account_id ?? null) === accountId) return grant;
    const updated = await repo.updateGrant(tx, grant.id, {
      properties: { ...grant.properties, account_id: accountId },
      pendingAction: "grant",
      modifiedAt: deps.clock.now(),
    });
    await enqueue(tx, deps, [updated]);
    return updated;
  });
  return (await serializeGrants(db, [row]))[0]!;
}
