// What a cycle order charges, in integer minor units: every fixed (or custom) price of the
// subscription, a seat-based price as its tiers' price for the subscription's seats, metered prices from the meter's usage over the period that just ended (unit amount ×
// units beyond the customer's credited units, capped), the discount by its duration, and tax on the
// net through the TaxCalculator. Pure given its inputs; usage is read by the caller.
import type { SeatTiers } from "../../../db/schema/index.ts";
import { percentageDiscountAmount } from "../../lib/discount-amount.ts";
import { addInterval } from "../../lib/periods.ts";
import { seatAmount } from "../products/seat-tiers.ts";
import type { TaxCalculator } from "../tax/calculator.ts";

export interface CyclePrice {
  id: string;
  amount_type: string;
  price_amount?: number;
  unit_amount?: string;
  cap_amount?: number | null;
  meter_id?: string;
  seat_tiers?: SeatTiers;
}

export interface CycleDiscount {
  type: string;
  amount: number | null;
  basisPoints: number | null;
  duration: string;
  durationInMonths: number | null;
}

export interface CycleLine {
  label: string;
  amount: number;
  productPriceId: string | null;
  proration: boolean;
}

export interface CycleAmounts {
  lines: CycleLine[];
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  /** Whether the discount applied to this order (the order then names it). */
  discounted: boolean;
}

/**
 * unit_amount is a decimal string of minor units with up to 12 decimals: the product is computed in
 * BigInt at 10^-12 and rounded half away from zero, as Polar's polar_round.
 */
export function meteredAmount(unitAmount: string, units: number, cap: number | null | undefined) {
  const [whole = "0", frac = ""] = unitAmount.split(".");
  const scaled = BigInt(whole + frac.padEnd(12, "0").slice(0, 12));
  const billable = BigInt(Math.max(0, Math.round(units * 1e6)));
  const product = scaled * billable; // × 10^-18
  const unit = 10n ** 18n;
  const amount = Number((product + unit / 2n) / unit);
  return cap !== null && cap !== undefined ? Math.min(amount, cap) : amount;
}

/**
 * Whether the discount applies to an order for the period starting at periodStart, its durations
 * counted from `appliedAt`, the start of the first period it applied to (null: none yet, so it
 * applies to none before its first renewal).
 */
export function discountApplies(
  discount: CycleDiscount | null,
  appliedAt: Date | null,
  periodStart: Date,
): discount is CycleDiscount {
  if (!discount || !appliedAt) return false;
  if (discount.duration === "forever") return true;
  // As Polar's is_repetition_expired: calendar months from the first period, that period being
  // the first month, so a weekly plan's one-month discount applies to its first week only.
  if (discount.duration === "repeating") {
    const months = Math.max(1, discount.durationInMonths ?? 1) - 1;
    const lastStart = months === 0 ? appliedAt : addInterval(appliedAt, "month", months);
    return periodStart.getTime() <= lastStart.getTime();
  }
  // "once": only the first period's order.
  return periodStart.getTime() <= appliedAt.getTime();
}

/** What a discount takes off an amount: a percentage rounded as Polar rounds it, never beyond it. */
export function discountAmountOf(d: CycleDiscount, base: number): number {
  const amount =
    d.type === "percentage" ? percentageDiscountAmount(base, d.basisPoints ?? 0) : (d.amount ?? 0);
  return Math.max(0, Math.min(amount, base));
}

export function cycleAmounts(input: {
  productName: string;
  prices: CyclePrice[];
  /** Units used per metered price id, already net of credited units. */
  usage: Map<string, number>;
  /** The amount of a custom (pay-what-you-want) price as first bought. */
  customAmount: number;
  /** The subscription's seats, for a seat-based price. */
  seats?: number | null;
  discount: CycleDiscount | null;
  /** When the discount first applied (discountApplies). */
  discountAppliedAt: Date | null;
  periodStart: Date;
  currency: string;
  country: string | null;
  tax: TaxCalculator;
  extraLines?: CycleLine[];
}): CycleAmounts {
  const lines: CycleLine[] = [];
  for (const p of input.prices) {
    if (p.amount_type === "fixed" || p.amount_type === "custom") {
      const amount = p.amount_type === "fixed" ? (p.price_amount ?? 0) : input.customAmount;
      lines.push({ label: input.productName, amount, productPriceId: p.id, proration: false });
    } else if (p.amount_type === "seat_based") {
      const seats = input.seats ?? 0;
      // Seats outside the tiers (the tiers changed since the sale) bill nothing rather than guess.
      const amount = p.seat_tiers ? (seatAmount(p.seat_tiers, seats) ?? 0) : 0;
      lines.push({
        label: `${input.productName} (${seats} seats)`,
        amount,
        productPriceId: p.id,
        proration: false,
      });
    } else if (p.amount_type === "metered_unit") {
      const units = input.usage.get(p.id) ?? 0;
      lines.push({
        label: `${input.productName} (${units} units)`,
        amount: meteredAmount(p.unit_amount ?? "0", units, p.cap_amount),
        productPriceId: p.id,
        proration: false,
      });
    }
  }
  for (const extra of input.extraLines ?? []) lines.push(extra);
  const subtotalAmount = lines.reduce((sum, l) => sum + l.amount, 0);
  const discounted = discountApplies(input.discount, input.discountAppliedAt, input.periodStart);
  // As Polar: every line but a proration is discountable, metered usage included; a proration
  // was priced with the discount of the period it settles.
  const discountable = lines.reduce((sum, l) => sum + (l.proration ? 0 : l.amount), 0);
  const discountAmount =
    discounted && input.discount ? discountAmountOf(input.discount, discountable) : 0;
  // Negative when a carried credit exceeds the period's charges: the rest goes to the balance,
  // with the tax that was paid on it, as an `invoice` change's credit gives it back.
  const netAmount = subtotalAmount - discountAmount;
  const taxAmount =
    netAmount === 0
      ? 0
      : Math.sign(netAmount) *
        (input.tax.quote({
          netAmount: Math.abs(netAmount),
          currency: input.currency,
          country: input.country,
        }).taxAmount ?? 0);
  return {
    lines,
    subtotalAmount,
    discountAmount,
    netAmount,
    taxAmount,
    totalAmount: netAmount + taxAmount,
    discounted,
  };
}

/**
 * A subscription's `amount` (as its checkout set it, and as Polar keeps it): what its prices bill a
 * period, usage excluded, less the discount while it applies.
 */
export function recurringAmountOf(
  input: Omit<Parameters<typeof cycleAmounts>[0], "usage" | "country" | "tax" | "extraLines">,
): number {
  return cycleAmounts({
    ...input,
    prices: input.prices.filter((p) => p.amount_type !== "metered_unit"),
    usage: new Map(),
    country: null,
    tax: { quote: () => ({ taxAmount: 0, basisPoints: 0 }) },
  }).netAmount;
}
