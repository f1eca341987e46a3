// Changing a subscription's product, per proration_behavior (the organization's setting when none
// is given). The prorated difference is computed to the second as Polar does: factor = time left in
// the period ÷ period length; the old fixed and seat prices' net is credited and the new one's
// debited, each rounded half to even (seats as seatsAfter says). `invoice` settles the difference
// now in a `subscription_update` order: an upgrade is charged, a downgrade's order totals the
// (negative) credit, which goes to the customer's balance and pays the next orders, as Polar does;
// `prorate` carries the difference to the next cycle order; `next_period` records a pending update applied at renewal;
// `reset` (behind the organization's flag) starts a new period of the new product now and settles
// its full price at once in a `subscription_update` order, crediting nothing of the old one.
import { randomUUID } from "node:crypto";
import { inTransaction, type Tx } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { seatAmount, seatBounds } from "../products/seat-tiers.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { prorationBehaviorOf } from "../organizations/queries.ts";
import { cycleAmounts, type CyclePrice } from "./amounts.ts";
import { chargeChangeNow } from "./charge-now.ts";
import { settleUsageBeforeChange } from "./meter-cycle.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { pendingProrations, periodDiscount, type DisplayProduct } from "./renewal.ts";
import { switchBenefits } from "./plan-benefits.ts";
import { invalidProduct, type ProductVisibility, planTarget } from "./plan-target.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";
import { trialOn } from "./trial-change.ts";
import {
  intervalChange,
  intervalOf,
  type NewPeriod,
  periodFrom,
  periodOn,
  prorationFactor,
  roundHalfEven,
} from "./plan-period.ts";

type Behavior = "invoice" | "prorate" | "next_period" | "reset";

/**
 * The prorated part of a product's prices (fixed, custom and seat-based; metered usage is billed as
 * measured) for the given seats, net of the period's discount.
 */
async function proratedNet(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  product: DisplayProduct,
  all: boolean,
  seats: number | null,
) {
  const prices = (product.prices as (CyclePrice & { is_archived?: boolean })[]).filter(
    (p) =>
      (all
        ? !p.is_archived && (p as { price_currency?: string }).price_currency === s.currency
        : s.priceIds.includes(p.id)) && PRORATED.has(p.amount_type),
  );
  return cycleAmounts({
    productName: product.name,
    prices,
    usage: new Map(),
    customAmount: s.customAmount ?? s.amount,
    seats,
    discount: await periodDiscount(deps, s, product.id),
    // As Polar, a proration takes the subscription's discount, one set since the renewal too.
    discountAppliedAt: s.discountAppliedAt ?? s.currentPeriodStart,
    periodStart: s.currentPeriodStart,
    currency: s.currency,
    country: null,
    tax: { quote: () => ({ taxAmount: 0, basisPoints: 0 }) },
  });
}

const PRORATED = new Set(["fixed", "custom", "seat_based"]);

/**
 * What `s` costs a period with its discount (one just set included, as Polar's amount shows it at
 * once): its `amount` after a discount change.
 */
export async function discountedAmount(deps: BillingDeps, s: repo.SubscriptionRow) {
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    s.productId,
  ]);
  return product ? (await proratedNet(deps, s, product, false, s.seats)).netAmount : s.amount;
}

/**
 * The seats after a move to `product`, as Polar: a seat-based subscription keeps its seats, which
 * must fit the new tiers; one moving onto seats starts at the new price's minimum, at once (a
 * scheduled move could not be sized); leaving seats for a product without them is refused.
 */
function seatsAfter(
  s: repo.SubscriptionRow,
  product: DisplayProduct,
  behavior: Behavior,
): { seats: number; amount: number } | null {
  const price = (
    product.prices as (CyclePrice & { is_archived: boolean; price_currency?: string })[]
  ).find(
    (p) =>
      !p.is_archived &&
      p.price_currency === s.currency &&
      p.amount_type === "seat_based" &&
      p.seat_tiers,
  );
  if (!price?.seat_tiers) {
    if (s.seats !== null)
      throw invalidProduct("Can't switch from a seat-based to a non-seat-based product.");
    return null;
  }
  const { minimum, maximum } = seatBounds(price.seat_tiers);
  if (s.seats === null && behavior === "next_period")
    throw RequestValidationError.field(
      ["body", "proration_behavior"],
      "Switching from a non-seat to a seat-based product must apply immediately and can't use the 'next_period' proration behavior.",
      "value_error",
    );
  const seats =
    s.seats === null
      ? minimum
      : behavior === "next_period"
        ? (s.pendingUpdate?.seats ?? s.seats)
        : s.seats;
  const amount = seatAmount(price.seat_tiers, seats);
  if (amount === null)
    throw invalidProduct(
      `The subscription's ${seats} seats do not fit this product's ${minimum} to ${maximum ?? "any number of"} seats: change the seats first.`,
    );
  return { seats, amount };
}

export async function changePlan(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  productId: string,
  requested: Behavior | null | undefined,
  now: Date,
  visibilities: readonly ProductVisibility[] | null = null,
): Promise<boolean> {
  const behavior = requested ?? (await prorationBehaviorOf(deps.db, s.organizationId));
  const [oldProduct, found] = await serializeProductsByIds(
    deps.db,
    deps.baseUrl,
    scopeOfResource(s),
    [s.productId, productId],
  ).then((found) => [s.productId, productId].map((id) => found.find((p) => p.id === id)));
  const { product, priceIds: activePrices } = planTarget(s, found, visibilities);
  const seated = seatsAfter(s, product, behavior);
  const seats = seated?.seats ?? null;
  // The old plan's usage is billed at its prices before the new ones apply (a trial's usage waits
  // for its first renewal, a scheduled change for the period's end).
  if (behavior !== "next_period" && s.status !== "trialing" && usesMeters(oldProduct, s))
    await settleUsageBeforeChange(deps, s, now);

  if (behavior === "next_period") {
    await inTransaction(deps.db, (tx) =>
      schedulePendingUpdate(tx, deps, s, now, {
        productId,
        // A seat change scheduled earlier still applies with the new product.
        ...(s.pendingUpdate?.seats != null ? { seats: s.pendingUpdate.seats } : {}),
      }),
    );
    return false;
  }
  // As Polar, a trial bills nothing now: the new product applies with its own trial, which may
  // end now (the renewal, the caller's to run, then bills it).
  if (s.status === "trialing") {
    const { endsNow, ...trial } = trialOn(s, product, now);
    const amount = (await proratedNet(deps, s, product, true, seats)).netAmount;
    await inTransaction(deps.db, (tx) =>
      switchProduct(tx, deps, s, product, activePrices, seated, amount, 0, now, trial),
    );
    return endsNow;
  }
  const factor = prorationFactor(s.currentPeriodStart, s.currentPeriodEnd, now);
  const [oldNet, newNet] = await Promise.all([
    oldProduct ? proratedNet(deps, s, oldProduct, false, s.seats) : null,
    proratedNet(deps, s, product, true, seats),
  ]);
  // A reset, or a new billing interval (monthly to yearly), starts a new period of the new product
  // now, as Polar does, debited in full and settled at once; a reset credits nothing of the old
  // period, an interval change its unused part.
  const reset = behavior === "reset";
  const period = reset ? periodFrom(now, intervalOf(product, s)) : intervalChange(s, product, now);
  const credit = reset ? 0 : roundHalfEven((oldNet?.netAmount ?? 0) * factor);
  const debit = period ? newNet.netAmount : roundHalfEven(newNet.netAmount * factor);
  // A prorate change still waiting for the old period's end has no end to wait for now: it is
  // settled with the new period's order.
  const waiting = period ? pendingProrations(s) : [];
  const difference = debit - credit + waiting.reduce((sum, l) => sum + l.amount, 0);
  const label = product.name;

  if ((behavior === "invoice" || period) && difference !== 0) {
    await chargeChangeNow(deps, s, {
      key: `update:${s.id}:${productId}:${now.toISOString()}`,
      description: `${label} (plan change)`,
      productId,
      seats,
      difference,
      lines: [
        ...waiting,
        ...(reset
          ? [{ label, amount: debit }]
          : [
              {
                label: `Unused time on ${oldProduct?.name ?? "the previous plan"}`,
                amount: -credit,
              },
              { label: `Remaining time on ${label}`, amount: debit },
            ]),
      ],
      now,
      apply: (tx) =>
        switchProduct(tx, deps, s, product, activePrices, seated, newNet.netAmount, 0, now, period),
    });
    return false;
  }
  // prorate: carried to the next cycle order as a line (a new period has nothing left to carry).
  await inTransaction(deps.db, (tx) =>
    switchProduct(
      tx,
      deps,
      s,
      product,
      activePrices,
      seated,
      newNet.netAmount,
      difference,
      now,
      period,
    ),
  );
  return false;
}

async function switchProduct(
  tx: Parameters<Parameters<typeof inTransaction>[1]>[0],
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  product: Pick<
    DisplayProduct,
    | "id"
    | "meter_interval"
    | "meter_interval_count"
    | "recurring_interval"
    | "recurring_interval_count"
  >,
  priceIds: string[],
  /** The seats and their amount on a seat-based product. */
  seated: { seats: number; amount: number } | null,
  /** The subscription's `amount` on the new product (its prices a period, less the discount). */
  amount: number,
  carried: number,
  now: Date,
  /** A new period starting now (a reset or a change of billing interval). */
  period: NewPeriod | null = null,
): Promise<void> {
  const clock = fixedClock(now);
  const locked = (await repo.lockSubscription(tx, scopeOfResource(s), s.id))!;
  const row = await scheduleNext(
    tx,
    deps.queue,
    await repo.updateSubscription(tx, s.id, {
      productId: product.id,
      priceIds,
      ...(seated ?? {}),
      amount,
      ...intervalOf(product, locked),
      pendingUpdate: null,
      // A new period's order settled what was waiting.
      prorationAmount: period ? 0 : locked.prorationAmount + carried,
      ...periodOn(locked, product, period, now),
      modifiedAt: now,
    }),
  );
  await switchBenefits(tx, { clock, queue: deps.queue }, row);
  await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, row, [
    "subscription.updated",
  ]);
  await recordCustomerState(tx, clock, s);
}

/** A change applied at the period's end (`next_period`): recorded on the row, announced now. */
export async function schedulePendingUpdate(
  tx: Tx,
  deps: Pick<BillingDeps, "clock" | "baseUrl">,
  s: repo.SubscriptionRow,
  now: Date,
  change: { productId: string | null; seats?: number },
): Promise<void> {
  const row = await repo.updateSubscription(tx, s.id, {
    pendingUpdate: {
      id: randomUUID(),
      ...change,
      appliesAt: s.currentPeriodEnd.toISOString(),
      createdAt: now.toISOString(),
    },
    modifiedAt: now,
  });
  await recordSubscriptionEvents(tx, { clock: deps.clock, baseUrl: deps.baseUrl }, row, [
    "subscription.updated",
  ]);
}

/**
 * Before a subscription ends now (a revoke): its usage up to `at` is billed, as Polar settles the
 * meter cycle before ending, so the usage of a period cut short is not lost. A trial's usage is
 * never billed. A past_due subscription's failed renewal billed the usage up to its period's start,
 * so only what came after is settled here.
 */
export async function settleUsageBeforeEnd(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
): Promise<void> {
  if (s.status !== "active" && s.status !== "past_due") return;
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    s.productId,
  ]);
  if (usesMeters(product, s)) await settleUsageBeforeChange(deps, s, at);
}

/** Whether the subscription's own prices (of its product) include one billed from usage. */
function usesMeters(product: { prices: unknown[] } | undefined, s: repo.SubscriptionRow): boolean {
  return ((product?.prices ?? []) as CyclePrice[]).some(
    (p) => p.amount_type === "metered_unit" && s.priceIds.includes(p.id),
  );
}
