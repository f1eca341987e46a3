// The country select: every code the API accepts, named in the buyer's language, and the address
// fields each country uses (its words for state and postal code).
import { COUNTRIES, SUBDIVISION_NAMES } from "../../../server/lib/country-codes.ts";

export interface CountryOption {
  code: string;
  name: string;
}

export function countryOptions(): CountryOption[] {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(undefined, { type: "region" });
  } catch {}
  return COUNTRIES.map((code) => ({ code, name: names?.of(code) ?? code })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}

/** The browser's region (en-US → US) when the API accepts it. */
export function localeCountry(): string | null {
  for (const tag of navigator.languages ?? [navigator.language]) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && (COUNTRIES as readonly string[]).includes(region)) return region;
    } catch {}
  }
  return null;
}

export interface AddressWords {
  state: string | null;
  postalCode: string;
}

const WORDS: Record<string, AddressWords> = {
  US: { state: "State", postalCode: "ZIP code" },
  CA: { state: "Province", postalCode: "Postal code" },
  AU: { state: "State", postalCode: "Postcode" },
  GB: { state: "County", postalCode: "Postcode" },
  IE: { state: "County", postalCode: "Eircode" },
  IN: { state: "State", postalCode: "PIN code" },
  BR: { state: "State", postalCode: "CEP" },
  MX: { state: "State", postalCode: "Postal code" },
  IT: { state: "Province", postalCode: "Postal code" },
  ES: { state: "Province", postalCode: "Postal code" },
  JP: { state: "Prefecture", postalCode: "Postal code" },
  CN: { state: "Province", postalCode: "Postal code" },
};

/** Countries without a state line in their addresses get none; the rest their own words. */
export function addressWords(country: string | null | undefined): AddressWords {
  return WORDS[country ?? ""] ?? { state: null, postalCode: "Postal code" };
}

/**
 * The states a country's addresses choose from (the US's and Canada's, which the API checks), as
 * the ISO 3166-2 codes it stores ("US-NY") with their names; null where the state is free text.
 */
export function subdivisionOptions(country: string | null | undefined): CountryOption[] | null {
  const names = SUBDIVISION_NAMES[country as keyof typeof SUBDIVISION_NAMES];
  if (!names) return null;
  return Object.entries(names)
    .map(([code, name]) => ({ code: `${country}-${code}`, name }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A stored state ("US-NY", or "NY" saved without the prefix) by its name; free text as it is. */
export function subdivisionName(country: string | null | undefined, state: string): string {
  const names = SUBDIVISION_NAMES[country as keyof typeof SUBDIVISION_NAMES];
  const code = state.startsWith(`${country}-`) ? state.slice(`${country}-`.length) : state;
  return names && Object.hasOwn(names, code) ? (names[code] ?? state) : state;
}
