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
