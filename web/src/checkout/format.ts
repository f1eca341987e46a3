// Amounts in the buyer's locale (the browser's) and the checkout's currency. Amounts are in the
// currency's minor units: cents, or whole yen for a zero-decimal currency.
import { minorPerMajor, typedMinorUnits } from "../../../server/lib/currency-units.ts";

export function money(amount: number, currency: string): string {
  const major = amount / minorPerMajor(currency);
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
    }).format(major);
  } catch {
    return `${major.toFixed(minorPerMajor(currency) === 1 ? 0 : 2)} ${currency.toUpperCase()}`;
  }
}

/**
 * What the buyer typed in the currency's units ("12.5" or "12,50" dollars, "1500" yen) in minor
 * units; NaN when it is not an amount.
 */
export function toMinor(text: string, currency: string): number {
  return typedMinorUnits(text, currency) ?? Number.NaN;
}

/** Minor units as the text of an amount field: 1250 cents → "12.5", 1500 yen → "1500". */
export function toMajorText(amount: number, currency: string): string {
  return String(amount / minorPerMajor(currency));
}

/** A unit price in minor units given as a decimal string ("0.5" cents is $0.005), in full. */
export function unitMoney(unitAmount: string, currency: string): string {
  const major = Number(unitAmount) / minorPerMajor(currency);
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
      maximumFractionDigits: 12,
    }).format(major);
  } catch {
    return `${major} ${currency.toUpperCase()}`;
  }
}

/** " / month" for a recurring price, "" for a one-time one. */
export function perInterval(recurring: string | null): string {
  return recurring ? ` / ${recurring}` : "";
}

/** Where a checkout without its own success URL sends the buyer: till's confirmation page. */
export function confirmationPath(secret: string): string {
  return `/checkout/${encodeURIComponent(secret)}/confirmation`;
}
export const interval = perInterval;

/** A price as the checkout and the portal both read it for its usage line. */
export interface UsagePrice {
  amount_type: string;
  is_archived?: boolean;
  unit_amount?: string;
  price_currency?: string;
  meter?: { name: string } | null;
}

/**
 * "Plus $0.005 per unit of API calls, billed each month" (or "every 3 months") for each price
 * billed from usage.
 */
export function usagePriceLines(
  prices: readonly UsagePrice[],
  currency: string,
  interval: string | null,
): string[] {
  return prices
    .filter((p) => p.amount_type === "metered_unit" && !p.is_archived && p.unit_amount)
    .map(
      (p) =>
        `Plus ${unitMoney(p.unit_amount!, p.price_currency ?? currency)} per unit of ${p.meter?.name ?? "usage"}${interval ? `, billed ${/^\d/.test(interval) ? "every" : "each"} ${interval}` : ""}`,
    );
}
