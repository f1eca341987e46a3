// A subscription's metered prices as Polar's SubscriptionMeter: what the current billing (or meter)
// period has consumed so far, the credit left for it at the period's start, and what the cycle
// order would bill for it now (before any discount). Computed when read, so a subscription
// without metered prices costs nothing.
import { createHash } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeMeterById } from "../meters/queries.ts";
import type { MeterOut } from "../meters/schemas.ts";
import type { ProductOut } from "../products/schemas.ts";
import { meteredAmount } from "./amounts.ts";
import type { SubscriptionRow } from "./repository.ts";
import type { SubscriptionMeterOut } from "./schemas.ts";
import { meterUsage } from "./usage.ts";

/** A stable id for the (subscription, meter) pair, shaped as a version-4 UUID. */
function pairId(subscriptionId: string, meterId: string): string {
  const h = createHash("sha256").update(`${subscriptionId}:${meterId}`).digest("hex");
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function subscriptionMeters(
  db: Db,
  rows: SubscriptionRow[],
  productById: Map<string, ProductOut>,
): Promise<Map<string, SubscriptionMeterOut[]>> {
  const out = new Map<string, SubscriptionMeterOut[]>();
  const meters = new Map<string, MeterOut | null>();
  for (const s of rows) {
    const metered = (productById.get(s.productId)?.prices ?? []).filter(
      (p) => s.priceIds.includes(p.id) && p.amount_type === "metered_unit",
    );
    if (metered.length === 0) continue;
    const start = s.currentMeterPeriodStart ?? s.currentPeriodStart;
    const end = s.currentMeterPeriodEnd ?? s.currentPeriodEnd;
    const list: SubscriptionMeterOut[] = [];
    for (const p of metered) {
      if (p.amount_type !== "metered_unit") continue;
      if (!meters.has(p.meter_id))
        meters.set(p.meter_id, await serializeMeterById(db, scopeOfResource(s), p.meter_id));
      const meter = meters.get(p.meter_id);
      if (!meter) continue;
      const { consumed, credited } = await meterUsage(db, s, p.meter_id, start, end);
      list.push({
        created_at: s.createdAt.toISOString(),
        modified_at: null,
        id: pairId(s.id, p.meter_id),
        consumed_units: consumed,
        credited_units: Math.floor(credited),
        amount: meteredAmount(p.unit_amount, Math.max(0, consumed - credited), p.cap_amount),
        meter_id: p.meter_id,
        meter,
      });
    }
    out.set(s.id, list);
  }
  return out;
}
