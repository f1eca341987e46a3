// Checkout amounts, in integer minor units only: subtotal from the price (a custom amount within its
// bounds), the discount, tax on the net, and the total. Pure functions: the service loads the rows.
import { percentageDiscountAmount } from "../../lib/discount-amount.ts";
import type { DiscountRow } from "../discounts/repository.ts";
import type { PriceRow } from "../products/repository.ts";
import { seatAmount, seatBounds } from "../products/seat-tiers.ts";
import type { TaxCalculator } from "../tax/calculator.ts";

export interface Amounts {
  amount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number | null;
  totalAmount: number;
}

/** The seats a session may sell: the tiers' bounds, narrowed by the seller's min/max for the session. */
export function sessionSeatBounds(
  price: PriceRow,
  session: { minSeats: number | null; maxSeats: number | null },
): { minimum: number; maximum: number | null } {
  const tiers = seatBounds(price.seatTiers ?? { seat_tier_type: "volume", tiers: [] });
  const minimum = Math.max(tiers.minimum, session.minSeats ?? 1);
  const caps = [tiers.maximum, session.maxSeats].filter((m): m is number => m !== null);
  return { minimum, maximum: caps.length ? Math.min(...caps) : null };
}

/**
 * The seats of a session for its price: null unless the price is seat-based; the requested count,
 * else the one already chosen, else the minimum. A message for the `seats` field when out of bounds.
 */
export function seatsOf(
  price: PriceRow,
  requested: number | null | undefined,
  current: number | null,
  session: { minSeats: number | null; maxSeats: number | null },
): { ok: true; seats: number | null } | { ok: false; msg: string } {
  if (price.amountType !== "seat_based") return { ok: true, seats: null };
  const { minimum, maximum } = sessionSeatBounds(price, session);
  const seats = requested ?? current ?? minimum;
  if (seats < minimum) return { ok: false, msg: `At least ${minimum} seats are required.` };
  if (maximum !== null && seats > maximum)
    return { ok: false, msg: `At most ${maximum} seats can be bought.` };
  return { ok: true, seats };
}

/** The price's amount for this checkout, or a message for the `amount` field when it is out of bounds. */
export function subtotalOf(
  price: PriceRow,
  requested: number | null | undefined,
  seats: number | null = null,
): { ok: true; amount: number } | { ok: false; msg: string } {
  switch (price.amountType) {
    case "seat_based": {
      const amount = price.seatTiers && seats !== null ? seatAmount(price.seatTiers, seats) : null;
      if (amount === null)
        return { ok: false, msg: "The number of seats is outside the price's tiers." };
      return { ok: true, amount };
    }
    case "fixed":
      return { ok: true, amount: price.priceAmount ?? 0 };
    case "custom": {
      const min = price.minimumAmount ?? 50;
      const max = price.maximumAmount ?? 99_999_999;
      const amount = requested ?? price.presetAmount ?? min;
      if (amount !== 0 && amount < min)
        return { ok: false, msg: `The amount must be at least ${min}.` };
      if (amount > max) return { ok: false, msg: `The amount must be at most ${max}.` };
      return { ok: true, amount };
    }
    default:
      // free, and metered prices billed later from usage.
      return { ok: true, amount: 0 };
  }
}

export function discountAmountOf(discount: DiscountRow | null, subtotal: number): number {
  if (!discount) return 0;
  if (discount.type === "percentage") {
    return Math.min(subtotal, percentageDiscountAmount(subtotal, discount.basisPoints ?? 0));
  }
  return Math.min(subtotal, discount.amount ?? 0);
}

export function computeAmounts(input: {
  subtotal: number;
  discount: DiscountRow | null;
  currency: string;
  country: string | null;
  tax: TaxCalculator;
}): Amounts {
  const discountAmount = discountAmountOf(input.discount, input.subtotal);
  const netAmount = input.subtotal - discountAmount;
  const { taxAmount } = input.tax.quote({
    netAmount,
    currency: input.currency,
    country: input.country,
  });
  return {
    amount: input.subtotal,
    discountAmount,
    netAmount,
    taxAmount,
    totalAmount: netAmount + (taxAmount ?? 0),
  };
}
