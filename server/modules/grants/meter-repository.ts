// SQL for customer meters: units credited by meter_credit grants. The units consumed since the
// customer meter began come from the meters module's read (rollups where they serve, raw events
// otherwise), so a balance always equals the meter's own quantities.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { customerMeters, meters } from "../../../db/schema/index.ts";
import { consumedUnits } from "../meters/queries.ts";
import { anyOf } from "../../../db/bulk.ts";

export type CustomerMeterRow = typeof customerMeters.$inferSelect;

/** Adds (or, negative, takes back) credited units; creates the customer meter on first credit. */
export async function creditUnits(
  db: Db,
  v: {
    organizationId: string;
    customerId: string;
    meterId: string;
    units: number;
    rollover: boolean;
    now: Date;
  },
): Promise<CustomerMeterRow> {
  const rollover = v.rollover ? v.units : 0;
  const [row] = await db
    .insert(customerMeters)
    .values({
      organizationId: v.organizationId,
      customerId: v.customerId,
      meterId: v.meterId,
      creditedUnits: v.units,
      rolloverUnits: rollover,
      createdAt: v.now,
    })
    .onConflictDoUpdate({
      target: [customerMeters.customerId, customerMeters.meterId],
      set: {
        creditedUnits: sql`${customerMeters.creditedUnits} + ${v.units}`,
        rolloverUnits: sql`${customerMeters.rolloverUnits} + ${rollover}`,
        modifiedAt: v.now,
      },
    })
    .returning();
  return row!;
}

/** The customer's credit row for one meter, if a meter_credit grant ever credited it. */
const inScope = (scope: OrgScope) => inArray(customerMeters.organizationId, [...scope]);

export async function creditRowOf(
  db: Db,
  scope: OrgScope,
  customerId: string,
  meterId: string,
): Promise<CustomerMeterRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(customerMeters)
    .where(
      and(
        eq(customerMeters.customerId, customerId),
        eq(customerMeters.meterId, meterId),
        inScope(scope),
      ),
    );
  return row ?? null;
}

export interface CustomerMeterBalance {
  row: CustomerMeterRow;
  meter: typeof meters.$inferSelect;
  consumed: number;
}

/** Which of `customerIds` have a customer meter at all. */
export async function customersWithMeters(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
): Promise<Set<string>> {
  if (customerIds.length === 0 || scope.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ customerId: customerMeters.customerId })
    .from(customerMeters)
    .where(and(anyOf(customerMeters.customerId, customerIds), inScope(scope)));
  return new Set(rows.map((r) => r.customerId));
}

export async function customerMetersOf(
  db: Db,
  scope: OrgScope,
  customerId: string,
  only: { id?: string } = {},
): Promise<CustomerMeterBalance[]> {
  if (scope.length === 0) return [];
  const conds = [eq(customerMeters.customerId, customerId), inScope(scope)];
  if (only.id) conds.push(eq(customerMeters.id, only.id));
  const rows = await db
    .select({ cm: customerMeters, meter: meters })
    .from(customerMeters)
    .innerJoin(meters, eq(meters.id, customerMeters.meterId))
    .where(and(...conds))
    .orderBy(asc(customerMeters.createdAt), asc(customerMeters.id));
  return Promise.all(
    rows.map(async ({ cm, meter }) => ({
      row: cm,
      meter,
      consumed: await consumedUnits(db, meter, customerId, cm.createdAt),
    })),
  );
}
