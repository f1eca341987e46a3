// Money and dates as people read them; shared by the pages and the error sentences.
import { majorUnits, minorPerMajor, typedMinorUnits } from "../../../server/lib/currency-units.ts";

/** Minor units in the currency, e.g. 1500 usd → "$15.00", 1500 jpy → "¥1,500". */
export function money(amount: number | null | undefined, currency = "usd"): string {
  if (amount === null || amount === undefined) return "—";
  return new Intl.NumberFormat(undefined, {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(majorUnits(amount, currency));
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** What a person typed in major units as minor units of `currency`, or null (typedMinorUnits). */
export const toMinorUnits = typedMinorUnits;

/** Minor units as the text of an amount field: 1500 usd → "15.00", 1500 jpy → "1500". */
export function toMajorText(amount: number, currency: string): string {
  return minorPerMajor(currency) === 1 ? String(amount) : (amount / 100).toFixed(2);
}
