// How many minor units make one unit of a currency. Amounts are integers in the currency's smallest
// unit, as Stripe counts them: cents for USD, but whole yen for JPY, which has no smaller unit.
const ZERO_DECIMAL = new Set([
  "bif",
  "clp",
  "djf",
  "gnf",
  "jpy",
  "kmf",
  "krw",
  "mga",
  "pyg",
  "rwf",
  "vnd",
  "vuv",
  "xaf",
  "xof",
  "xpf",
]);

/** 1 for a zero-decimal currency (JPY, KRW…), else 100. */
export function minorPerMajor(currency: string): number {
  return ZERO_DECIMAL.has(currency.toLowerCase()) ? 1 : 100;
}

/** An amount in minor units as a number of major units: 1500 usd → 15, 1500 jpy → 1500. */
export function majorUnits(minor: number, currency: string): number {
  return minor / minorPerMajor(currency);
}

// Building a NumberFormat costs more than formatting with it: one per currency.
const formats = new Map<string, Intl.NumberFormat>();

/** An amount in minor units as money a person reads: 1500 usd → "$15.00", 1500 jpy → "¥1,500". */
export function formatMoney(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = formats.get(code);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
    formats.set(code, format);
  }
  return format.format(majorUnits(minor, currency));
}

/**
 * What a person typed in major units ("15", "15.5", "15,50", "1500" yen) as minor units, or null
 * when it is not an amount. A comma is a decimal separator only before one or two final digits:
 * "1,000" is refused rather than read as one unit. A zero-decimal currency takes whole units only.
 * Rounded to the minor unit so float noise (0.1 + 0.2) never reaches the API.
 */
export function typedMinorUnits(text: string, currency: string): number | null {
  const t = text.trim().replace(/^(\d+),(\d{1,2})$/, "$1.$2");
  const perMajor = minorPerMajor(currency);
  if (!(perMajor === 1 ? /^\d+$/ : /^\d+(\.\d{0,2})?$/).test(t)) return null;
  return Math.round(Number(t) * perMajor);
}
