// customer.state_changed payloads of many customers at once, for a batch of renewals: the same
// state customerStateOf gives one customer, from one read per kind of row instead of one per
// customer.
import type { Db } from "../../../db/client.ts";
import { customerStateGrantsOf } from "../grants/service.ts";
import { stateSubscriptionOut } from "../subscriptions/schemas.ts";
import { activeSubscriptionsOfCustomers } from "../subscriptions/service.ts";
import * as repo from "./repository.ts";
import { customerOut } from "./schemas.ts";

export async function customerStatesOf(db: Db, customerIds: string[]) {
  const [customers, active, grants] = await Promise.all([
    repo.findCustomersByIds(db, customerIds),
    activeSubscriptionsOfCustomers(db, customerIds),
    customerStateGrantsOf(db, customerIds),
  ]);
  const activeByCustomer = new Map<string, typeof active>();
  for (const s of active) {
    const list = activeByCustomer.get(s.customerId) ?? [];
    list.push(s);
    activeByCustomer.set(s.customerId, list);
  }
  return new Map(
    customers.map((c) => [
      c.id,
      {
        ...customerOut(c),
        active_subscriptions: (activeByCustomer.get(c.id) ?? []).map(stateSubscriptionOut),
        ...grants.get(c.id)!,
      },
    ]),
  );
}
