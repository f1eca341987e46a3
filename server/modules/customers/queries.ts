// Reads of customers for the modules above them (grants, events, subscriptions, orders, …): no
// side effects, and nothing but this module's repository below them, so a module that the
// customers' use cases call can read customers without an import cycle. Each takes the OrgScope
// its caller holds (the rows it renders, a customer session), never a bare organization id.
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { customerOut } from "./schemas.ts";

/** Live customers in the scope matched by id or external id (for event ingestion). */
export function resolveCustomerRefs(db: Db, scope: OrgScope, ids: string[], externalIds: string[]) {
  return repo.customerRefs(db, scope, ids, externalIds);
}

/** Customers by id in the scope, deleted ones included, as embedded in the rows that refer to them. */
export async function customersByIds(db: Db, scope: OrgScope, ids: string[]) {
  return (await customerRecordsByIds(db, scope, ids)).map(customerOut);
}

/** customersByIds as records: one read a batch renders several ways (customerStatesOf, customerOut). */
export function customerRecordsByIds(db: Db, scope: OrgScope, ids: string[]) {
  return repo.findCustomersByIds(db, scope, ids);
}

/** The scope's customers with these external ids, as a subquery for a list filter. */
export const customerIdsByExternalId = repo.customerIdsByExternalId;
