// The meters module's read API for other modules (no side effects): they never import its SQL.
import type { Db } from "../../../db/client.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { meterQuantities } from "./rollup-read.ts";
import * as repo from "./repository.ts";
import { meterOut, type MeterOut } from "./schemas.ts";

export type { MeterRow } from "./repository.ts";

/** The meter with `id` when the scope owns it, else null. */
export function findMeter(db: Db, scope: OrgScope, id: string): Promise<repo.MeterRow | null> {
  return repo.findMeter(db, scope, id);
}

/** The meter as the API shows it, when the scope owns it. */
export async function serializeMeterById(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<MeterOut | null> {
  const row = await repo.findMeter(db, scope, id);
  return row ? meterOut(row) : null;
}

/** One customer's usage over a period (the cycle order of a metered price bills it). */
export async function customerUsage(
  db: Db,
  scope: OrgScope,
  q: { meterId: string; customerId: string; start: Date; end: Date },
): Promise<number> {
  const meter = await repo.findMeter(db, scope, q.meterId);
  if (!meter || q.end <= q.start) return 0;
  const result = await meterQuantities(db, {
    meterId: meter.id,
    organizationId: meter.organizationId,
    filter: meter.filter,
    aggregation: meter.aggregation,
    start: q.start,
    // Events at exactly the period end belong to the next period.
    end: new Date(q.end.getTime() - 1),
    interval: "year",
    timezone: "UTC",
    customerIds: [q.customerId],
    metadata: {},
  });
  return result?.total ?? 0;
}

/**
 * Units a customer consumed on a meter since `since` (a customer meter's balance): every later
 * event counts, so the period runs to the customer's latest event when that is in the future.
 */
export async function consumedUnits(
  db: Db,
  meter: Pick<repo.MeterRow, "id" | "organizationId" | "filter" | "aggregation">,
  customerId: string,
  since: Date,
): Promise<number> {
  const latest = await repo.latestEventAt(db, scopeOfResource(meter), customerId);
  if (!latest || latest < since) return 0;
  const now = new Date();
  const result = await meterQuantities(db, {
    meterId: meter.id,
    organizationId: meter.organizationId,
    filter: meter.filter,
    aggregation: meter.aggregation,
    start: since,
    end: latest > now ? latest : now,
    interval: "year",
    timezone: "UTC",
    customerIds: [customerId],
    metadata: {},
  });
  return result?.total ?? 0;
}
