// The customer state (GET /v1/customers/{id}/state, customer.state_changed): the customer with its
// active subscriptions, granted benefits and meter balances. Gathered from the other modules'
// read-only queries, since their use cases emit it. customerStatesOf gives many customers' states
// from one read per kind of row instead of one per customer (a batch of renewals).
import type { Db } from "../../../db/client.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { customerStateGrants, customerStateGrantsOf } from "../grants/queries.ts";
import { stateSubscriptionOut } from "../subscriptions/schemas.ts";
import { activeSubscriptionsOf, activeSubscriptionsOfCustomers } from "../subscriptions/queries.ts";
import * as repo from "./repository.ts";
import { customerOut, type CustomerRecord } from "./schemas.ts";

export async function customerStatesOf(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
  /** The customers' records when the caller has just read them in its transaction. */
  records?: CustomerRecord[],
) {
  const [customers, active, grants] = await Promise.all([
    records ?? repo.findCustomersByIds(db, scope, customerIds),
    activeSubscriptionsOfCustomers(db, scope, customerIds),
    customerStateGrantsOf(db, scope, customerIds),
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

/** The customer state's active subscriptions, benefit grants and meter balances of one customer. */
export async function customerStateExtras(deps: { db: Db }, customer: CustomerRecord) {
  const active = await activeSubscriptionsOf(deps.db, scopeOfResource(customer), customer.id);
  return {
    active_subscriptions: active.map(stateSubscriptionOut),
    ...(await customerStateGrants(deps.db, scopeOfResource(customer), customer.id)),
  };
}

/** The state of a customer by id (any state) in the scope, as customer.state_changed carries it. */
export async function customerStateOf(db: Db, scope: OrgScope, customerId: string) {
  const customer = await repo.findAnyCustomer(db, scope, customerId);
  if (!customer) return null;
  return { ...customerOut(customer), ...(await customerStateExtras({ db }, customer)) };
}
