// Reads of subscriptions for the customer state, which the subscriptions' own use cases emit:
// repository reads only, so the state can gather them without importing the use cases.
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";

export function activeSubscriptionsOf(db: Db, customerId: string) {
  return repo.activeOfCustomer(db, customerId);
}

export function activeSubscriptionsOfCustomers(db: Db, customerIds: string[]) {
  return repo.activeOfCustomers(db, customerIds);
}
