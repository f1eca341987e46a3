// SQL for the seller's view of customer meters (rows written by meter_credit grants).
import { and, asc, count, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customerMeters, customers, meters } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import type { CustomerMeterSort } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export interface CustomerMeterFilter {
  scope: OrgScope;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  meterIds?: string[] | undefined;
  id?: string;
}

const SORTS: Partial<Record<CustomerMeterSort, SQL>> = {
  created_at: sql`${customerMeters.createdAt}`,
  modified_at: sql`coalesce(${customerMeters.modifiedAt}, ${customerMeters.createdAt})`,
  customer_id: sql`${customerMeters.customerId}`,
  customer_name: sql`lower(coalesce(${customers.name}, ${customers.email}))`,
  meter_id: sql`${customerMeters.meterId}`,
  meter_name: sql`lower(${meters.name})`,
  credited_units: sql`${customerMeters.creditedUnits}`,
};

/** A page in SQL order; without `limit`, every match (for sorts on computed balances). */
export async function listCustomerMeters(
  db: Db,
  f: CustomerMeterFilter,
  sorting: { key: CustomerMeterSort; desc: boolean }[],
  page: { limit: number; offset: number } | null,
) {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inScope(customerMeters.organizationId, f.scope)];
  if (f.customerIds?.length) conds.push(anyOf(customerMeters.customerId, f.customerIds));
  if (f.externalCustomerIds?.length) conds.push(anyOf(customers.externalId, f.externalCustomerIds));
  if (f.meterIds?.length) conds.push(anyOf(customerMeters.meterId, f.meterIds));
  if (f.id) conds.push(eq(customerMeters.id, f.id));
  const where = and(...conds);
  const order = sorting.flatMap((s) => {
    const col = SORTS[s.key];
    return col ? [s.desc ? desc(col) : asc(col)] : [];
  });
  const base = db
    .select({ cm: customerMeters, meter: meters })
    .from(customerMeters)
    .innerJoin(meters, eq(meters.id, customerMeters.meterId))
    .innerJoin(customers, eq(customers.id, customerMeters.customerId))
    .where(where)
    .orderBy(...order, asc(customerMeters.id));
  const [rows, [totals]] = await Promise.all([
    page ? base.limit(page.limit).offset(page.offset) : base,
    db
      .select({ n: count() })
      .from(customerMeters)
      .innerJoin(customers, eq(customers.id, customerMeters.customerId))
      .where(where),
  ]);
  return { rows, total: totals!.n };
}
