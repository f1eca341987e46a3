// Checkout amounts, in integer minor units only: subtotal from the price (a custom amount within its
// bounds), the discount, tax on the net, and the total. Pure functions: the service loads the rows.
import type { DiscountRow } from "../discounts/repository.ts";
import type { PriceRow } from "../products/repository.ts";
import type { TaxCalculator } from "../tax/calculator.ts";

export interface Amounts {
  amount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number | null;
  totalAmount: number;
}

/** The price's amount for this checkout, or a message for the `amount` field when it is out of bounds. */
export function subtotalOf(
  price: PriceRow,
  requested: number | null | undefined,
): { ok: true; amount: number } | { ok: false; msg: string } {
  switch (price.amountType) {
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

/** Why a discount cannot apply to this product now, or null when it can. */
export function discountRefusal(
  discount: DiscountRow,
  productId: string,
  restrictedTo: string[],
  currency: string,
  now: Date,
): string | null {
  if (discount.deletedAt) return "This discount no longer exists.";
  if (discount.startsAt && discount.startsAt > now) return "This discount is not active yet.";
  if (discount.endsAt && discount.endsAt <= now) return "This discount has ended.";
  if (discount.maxRedemptions !== null && discount.redemptionsCount >= discount.maxRedemptions)
    return "This discount has been fully redeemed.";
  if (restrictedTo.length > 0 && !restrictedTo.includes(productId))
    return "This discount does not apply to this product.";
  if (discount.type === "fixed" && discount.currency && discount.currency !== currency)
    return "This discount is in another currency.";
  return null;
}

export function discountAmountOf(discount: DiscountRow | null, subtotal: number): number {
  if (!discount) return 0;
  if (discount.type === "percentage") {
    // Half-up on non-negative integers: basis points of the subtotal.
    return Math.min(subtotal, Math.floor((subtotal * (discount.basisPoints ?? 0) + 5000) / 10000));
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
