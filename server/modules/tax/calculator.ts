// Tax through one interface. The default charges none; TAX_RATES configures a rate per country in
// basis points ("DE:1900,FR:2000"), applied to the net amount (tax-exclusive pricing).
export interface TaxQuote {
  /** Minor units; null when the rate cannot be known yet (no country given). */
  taxAmount: number | null;
  basisPoints: number;
}

export interface TaxCalculator {
  quote(input: { netAmount: number; currency: string; country: string | null }): TaxQuote;
}

export const noTax: TaxCalculator = { quote: () => ({ taxAmount: 0, basisPoints: 0 }) };

export function rateTable(rates: Readonly<Record<string, number>>): TaxCalculator {
  return {
    quote({ netAmount, country }) {
      if (!country)
        return { taxAmount: Object.keys(rates).length === 0 ? 0 : null, basisPoints: 0 };
      const bp = rates[country.toUpperCase()] ?? 0;
      // Half-up rounding of a non-negative amount, in integers only.
      return { taxAmount: Math.floor((netAmount * bp + 5000) / 10000), basisPoints: bp };
    },
  };
}

export function createTaxCalculator(rates: Readonly<Record<string, number>>): TaxCalculator {
  return Object.keys(rates).length === 0 ? noTax : rateTable(rates);
}
