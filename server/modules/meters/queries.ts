// What other modules read of meters: one customer's usage over a period (the cycle order of a
// metered price bills it).
import type { Db } from "../../../db/client.ts";
import { meterQuantities } from "./quantities.ts";
import { findMeter } from "./repository.ts";

export async function customerUsage(
  db: Db,
  q: { organizationId: string; meterId: string; customerId: string; start: Date; end: Date },
): Promise<number> {
  const meter = await findMeter(db, [q.organizationId], q.meterId);
  if (!meter || q.end <= q.start) return 0;
  const result = await meterQuantities(db, {
    organizationId: q.organizationId,
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
