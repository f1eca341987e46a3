// Reads of customers for the modules above them (grants, events, subscriptions, orders, …): no
// side effects, and nothing but this module's repository below them, so a module that the
// customers' use cases call can read customers without an import cycle.
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";
import { customerOut } from "./schemas.ts";

/** Live customers of one organization matched by id or external id (for event ingestion). */
export function resolveCustomerRefs(
  db: Db,
  organizationId: string,
  ids: string[],
  externalIds: string[],
) {
  return repo.customerRefs(db, organizationId, ids, externalIds);
}

/** Customers by id, deleted ones included, as embedded in events (whose tenancy is already checked). */
export async function customersByIds(db: Db, ids: string[]) {
  return (await repo.findCustomersByIds(db, ids)).map(customerOut);
}
