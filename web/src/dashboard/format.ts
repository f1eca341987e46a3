// Money and dates as people read them; shared by the pages and the error sentences.

/** Minor units (cents) in the currency, e.g. 1500 usd → "$15.00". */
export function money(amount: number | null | undefined, currency = "usd"): string {
  if (amount === null || amount === undefined) return "—";
  return new Intl.NumberFormat(undefined, {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(amount / 100);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * What a person typed in major units ("15", "15.5", "15,50") as minor units, or null when it is
 * not an amount. Rounded to the cent so 0.1 + 0.2 style float noise never reaches the API.
 */
export function toMinorUnits(text: string): number | null {
  const t = text.trim().replace(",", ".");
  if (!/^\d+(\.\d{0,2})?$/.test(t)) return null;
  return Math.round(Number(t) * 100);
}

/** Minor units as the text of an amount field: 1500 → "15.00". */
export function toMajorText(amount: number): string {
  return (amount / 100).toFixed(2);
}
