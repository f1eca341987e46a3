// A subscription's grants at a paid renewal: each grant in force is cycled and reported with
// benefit_grant.cycled, in the renewal's transaction. A meter_credit grant credits its units again
// for the new period: the balance becomes the benefit's units, plus what was left of the old
// credit when the benefit rolls over (at most one period's units, as Polar's rollover). Usage
// beyond the credit was billed by the cycle's order, so an overdrawn balance starts again at the
// units, not below them. A separate meter cycle renews only the meter_credit grants.
import type { Db, Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { customerUsage } from "../meters/queries.ts";
import { creditRowOf, creditUnits } from "./meter-repository.ts";
import * as repo from "./repository.ts";
import { serializeGrants } from "./service.ts";

export async function cycleGrantsOfSubscription(
  tx: Tx,
  clock: Clock,
  subscription: { id: string; organizationId: string },
  only: "all" | "meter_credit" = "all",
  /** The start of the period credited: a renewal's boundary, though it is paid later. */
  periodStart: Date = clock.now(),
): Promise<number> {
  // A grant waiting to be granted again (a paid retry after a failure took it back) is credited
  // for the period too, net of what its grant job will add, so the period starts full.
  const cyclable = await repo.cyclableOfSubscription(
    tx,
    scopeOfResource(subscription),
    subscription.id,
  );
  if (cyclable.length === 0) return 0;
  const benefits = new Map(
    (
      await benefitRowsByIds(tx, scopeOfResource(...cyclable), [
        ...new Set(cyclable.map((g) => g.benefitId)),
      ])
    ).map((b) => [b.id, b]),
  );
  const grants =
    only === "all"
      ? cyclable
      : cyclable.filter((g) => benefits.get(g.benefitId)?.type === "meter_credit");
  if (grants.length === 0) return 0;
  await creditAgain(tx, clock.now(), periodStart, grants, benefits);
  // Only a grant in force is cycled; one on its way reports its grant when the job makes it.
  const inForce = grants.filter((g) => g.grantedAt && !g.revokedAt);
  for (const data of await serializeGrants(tx, inForce))
    await recordEvent(tx, clock, {
      organizationId: grants[0]!.organizationId,
      type: "benefit_grant.cycled",
      data,
    });
  return inForce.length;
}

/**
 * cycleGrantsOfSubscription for a batch of paid renewals: the grants of all the subscriptions read
 * and rendered once. Answers each subscription's benefit_grant.cycled payloads, for the caller to
 * record among that subscription's other events.
 */
export async function cycleGrantsOfSubscriptions(
  tx: Tx,
  clock: Clock,
  subscriptions: { id: string; organizationId: string }[],
): Promise<Map<string, unknown[]>> {
  const bySubscription = new Map<string, unknown[]>();
  const grants = await repo.grantedOfSubscriptions(
    tx,
    scopeOfResource(...subscriptions),
    subscriptions.map((s) => s.id),
  );
  if (grants.length === 0) return bySubscription;
  const benefits = new Map(
    (
      await benefitRowsByIds(tx, scopeOfResource(...grants), [
        ...new Set(grants.map((g) => g.benefitId)),
      ])
    ).map((b) => [b.id, b]),
  );
  const now = clock.now();
  await creditAgain(tx, now, now, grants, benefits);
  const rendered = await serializeGrants(tx, grants);
  grants.forEach((g, i) => {
    const list = bySubscription.get(g.subscriptionId!) ?? [];
    list.push(rendered[i]);
    bySubscription.set(g.subscriptionId!, list);
  });
  return bySubscription;
}

type MeterCredit = { meter_id?: string; units?: number; rollover?: boolean };

async function creditAgain(
  tx: Tx,
  now: Date,
  periodStart: Date,
  grants: repo.GrantRow[],
  benefits: Map<string, { type: string; properties: unknown }>,
): Promise<void> {
  for (const g of grants) {
    const benefit = benefits.get(g.benefitId);
    if (benefit?.type !== "meter_credit") continue;
    // A pending grant job credits the benefit's units (meterCredit.grant) after this.
    const incoming = g.pendingAction === "grant" ? (benefit.properties as MeterCredit) : null;
    const p = incoming ?? (g.properties as MeterCredit);
    if (!p.meter_id || !p.units) continue;
    const left = (await creditLeftAt(tx, g, p.meter_id, periodStart)) + (incoming?.units ?? 0);
    const kept = p.rollover ? Math.max(0, Math.min(left, p.units)) : 0;
    const delta = p.units + kept - left;
    if (delta !== 0)
      await creditUnits(tx, {
        organizationId: g.organizationId,
        customerId: g.customerId,
        meterId: p.meter_id,
        units: delta,
        rollover: false,
        now,
      });
  }
}

/**
 * What is left of a customer's credit on a meter at `at`, the start of the period being credited:
 * usage from then on is the new period's, even when it was recorded before the renewal ran (a
 * late job, or a clock advanced over several periods).
 */
async function creditLeftAt(tx: Tx, g: repo.GrantRow, meterId: string, at: Date) {
  const row = await creditRowOf(tx, scopeOfResource(g), g.customerId, meterId);
  if (!row) return 0;
  const used = await customerUsage(tx, scopeOfResource(g), {
    meterId,
    customerId: g.customerId,
    start: row.createdAt,
    end: at,
  });
  return row.creditedUnits - used;
}

/**
 * The credit row of a customer's meter (credited units and since when), for billing usage net of
 * credits; null when no meter_credit grant ever credited that meter.
 */
export function meterCreditOf(db: Db, scope: OrgScope, customerId: string, meterId: string) {
  return creditRowOf(db, scope, customerId, meterId);
}
