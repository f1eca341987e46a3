// The benefit use cases that reach into its grants: deleting a benefit revokes what it granted,
// and a benefit's grants are listed. Kept apart from service.ts, which the grants module itself
// calls, so that the two modules do not import each other.
import { inTransaction } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import type { Pagination } from "../../lib/pagination.ts";
import type { BenefitGrantListQuery } from "../grants/schemas.ts";
import { listGrantsOfBenefit, revokeGrantsOfBenefit } from "../grants/service.ts";
import * as repo from "./repository.ts";
import { ownBenefit, type BenefitDeps } from "./service.ts";

/** Soft delete: the row stays for past grants; the benefit disappears from lists and products. */
export async function deleteBenefit(
  deps: BenefitDeps,
  ctx: AuthContext,
  id: string,
): Promise<void> {
  const current = await ownBenefit(deps, ctx, id);
  const now = deps.clock.now();
  await inTransaction(deps.db, async (tx) => {
    await repo.updateBenefit(tx, current.id, { deletedAt: now, modifiedAt: now });
    await revokeGrantsOfBenefit(tx, { clock: deps.clock, queue: deps.queue ?? null }, current);
  });
}

/** Grants of a benefit, newest first. */
export async function listGrants(
  deps: BenefitDeps,
  ctx: AuthContext,
  id: string,
  query: BenefitGrantListQuery,
  page: Pagination,
) {
  const benefit = await ownBenefit(deps, ctx, id);
  return listGrantsOfBenefit(deps.db, scopeOfResource(benefit), benefit.id, query, page);
}
