// Metered usage billed for a stretch of a subscription (a billing period, or a meter cycle within
// it): the meter's quantity for the customer over [start, end), less the credit the customer's
// meter_credit grants left for it at `start` (credited units minus what was used before then), as
// Polar bills units beyond the credited ones.
import type { Db } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { meterCreditOf } from "../grants/cycle.ts";
import { customerUsage } from "../meters/queries.ts";
import type { CyclePrice } from "./amounts.ts";

export async function billableUsage(
  db: Db,
  s: { organizationId: string; customerId: string },
  prices: CyclePrice[],
  start: Date,
  end: Date,
): Promise<Map<string, number>> {
  const usage = new Map<string, number>();
  for (const p of prices) {
    if (p.amount_type !== "metered_unit" || !p.meter_id) continue;
    const { consumed, credited } = await meterUsage(db, s, p.meter_id, start, end);
    usage.set(p.id, Math.max(0, consumed - credited));
  }
  return usage;
}

/** A meter's units consumed over [start, end) and the credit left for them at `start`. */
export async function meterUsage(
  db: Db,
  s: { organizationId: string; customerId: string },
  meterId: string,
  start: Date,
  end: Date,
): Promise<{ consumed: number; credited: number }> {
  const q = { organizationId: s.organizationId, meterId, customerId: s.customerId };
  const consumed = await customerUsage(db, scopeOfResource(s), { ...q, start, end });
  return { consumed, credited: await creditAt(db, q, start) };
}

async function creditAt(
  db: Db,
  q: { organizationId: string; meterId: string; customerId: string },
  at: Date,
): Promise<number> {
  const row = await meterCreditOf(db, scopeOfResource(q), q.customerId, q.meterId);
  if (!row || row.creditedUnits <= 0) return 0;
  const before =
    row.createdAt < at
      ? await customerUsage(db, scopeOfResource(q), { ...q, start: row.createdAt, end: at })
      : 0;
  return Math.max(0, row.creditedUnits - before);
}
