// The grants and meter balances of the customer state: reads only, apart from the grant use cases
// (which read customers themselves), so the state can gather them without an import cycle.
import type { Db } from "../../../db/client.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { customerMetersOf, customersWithMeters } from "./meter-repository.ts";
import * as repo from "./repository.ts";
import { stateGrantOut, stateMeterOut } from "./schemas.ts";

/** Customer state: the benefits granted now, and the customer's meters with their balances. */
export async function customerStateGrants(db: Db, scope: OrgScope, customerId: string) {
  const grants = await repo.grantedOfCustomer(db, scope, customerId);
  const benefits = new Map(
    (
      await benefitRowsByIds(db, scopeOfResource(...grants), [
        ...new Set(grants.map((g) => g.benefitId)),
      ])
    ).map((b) => [b.id, b]),
  );
  const meters = await customerMetersOf(db, scope, customerId);
  return {
    granted_benefits: grants.map((g) => stateGrantOut(g, benefits.get(g.benefitId)!)),
    active_meters: meters.map(stateMeterOut),
  };
}

/** customerStateGrants of many customers, in a few reads (a batch of renewals). */
export async function customerStateGrantsOf(db: Db, scope: OrgScope, customerIds: string[]) {
  const [grants, withMeters] = await Promise.all([
    repo.grantedOfCustomers(db, scope, customerIds),
    customersWithMeters(db, scope, customerIds),
  ]);
  const benefits = new Map(
    (
      await benefitRowsByIds(db, scopeOfResource(...grants), [
        ...new Set(grants.map((g) => g.benefitId)),
      ])
    ).map((b) => [b.id, b]),
  );
  const meters = new Map(
    await Promise.all(
      [...withMeters].map(async (id) => [id, await customerMetersOf(db, scope, id)] as const),
    ),
  );
  return new Map(
    customerIds.map((id) => [
      id,
      {
        granted_benefits: grants
          .filter((g) => g.customerId === id)
          .map((g) => stateGrantOut(g, benefits.get(g.benefitId)!)),
        active_meters: (meters.get(id) ?? []).map(stateMeterOut),
      },
    ]),
  );
}
