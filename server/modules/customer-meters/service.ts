// Customer meters for the seller: every customer's credited and consumed units per meter. Consumed
// units come from the meters module, which owns how usage is aggregated.
import type { Db } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { meterOut } from "../meters/schemas.ts";
import { consumedUnits } from "../meters/queries.ts";
import * as repo from "./repository.ts";
import { customerMeterOut, type CustomerMeterListQuery } from "./schemas.ts";

export interface CustomerMeterDeps {
  /**
   * Balances aggregate events: they read a replica when there is one (a few moments behind; the
   * billing engine bills usage from the primary itself).
   */
  read: Db;
}

type Found = Awaited<ReturnType<typeof repo.listCustomerMeters>>["rows"];

async function render(db: Db, rows: Found) {
  const customers = new Map(
    (
      await customersByIds(db, scopeOfResource(...rows.map((r) => r.cm)), [
        ...new Set(rows.map((r) => r.cm.customerId)),
      ])
    ).map((c) => [c.id, c]),
  );
  return Promise.all(
    rows.map(async ({ cm, meter }) => {
      const consumed = await consumedUnits(db, meter, cm.customerId, cm.createdAt);
      const customer = customers.get(cm.customerId);
      // The foreign key keeps it, deleted customers included: a miss is a broken database.
      if (!customer)
        throw new Error(`Customer ${cm.customerId} of customer meter ${cm.id} is gone.`);
      return customerMeterOut({ ...cm, consumed }, customer, meterOut(meter));
    }),
  );
}

// Balances are computed, not stored: sorting on them ranks every match, then cuts the page.
const COMPUTED = new Set(["consumed_units", "balance"]);

export async function listCustomerMeters(
  deps: CustomerMeterDeps,
  ctx: AuthContext,
  q: CustomerMeterListQuery,
  page: Pagination,
) {
  const filter: repo.CustomerMeterFilter = {
    scope: scopeOfCaller(ctx, q.organization_id),
    customerIds: q.customer_id,
    externalCustomerIds: q.external_customer_id,
    meterIds: q.meter_id,
  };
  if (!q.sorting.some((s) => COMPUTED.has(s.key))) {
    const { rows, total } = await repo.listCustomerMeters(deps.read, filter, q.sorting, {
      limit: page.limit,
      offset: offsetOf(page),
    });
    return pageOf(await render(deps.read, rows), total, page);
  }
  const { rows, total } = await repo.listCustomerMeters(deps.read, filter, q.sorting, null);
  const all = await render(deps.read, rows);
  const key = (m: (typeof all)[number], k: string): string | number =>
    k === "consumed_units"
      ? m.consumed_units
      : k === "balance"
        ? m.balance
        : k === "credited_units"
          ? m.credited_units
          : k === "meter_name"
            ? m.meter.name.toLowerCase()
            : k === "customer_id"
              ? m.customer_id
              : k === "meter_id"
                ? m.meter_id
                : k === "modified_at"
                  ? (m.modified_at ?? m.created_at)
                  : m.created_at;
  all.sort((a, b) => {
    for (const { key: k, desc } of q.sorting) {
      const [x, y] = [key(a, k), key(b, k)];
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return a.id < b.id ? -1 : 1;
  });
  return pageOf(all.slice(offsetOf(page), offsetOf(page) + page.limit), total, page);
}

export async function getCustomerMeter(deps: CustomerMeterDeps, ctx: AuthContext, id: string) {
  const { rows } = await repo.listCustomerMeters(deps.read, { scope: scopeOfCaller(ctx), id }, [], {
    limit: 1,
    offset: 0,
  });
  if (rows.length === 0) throw new ResourceNotFound("Customer meter not found.");
  return (await render(deps.read, rows))[0]!;
}
