// The country codes as a schema (the list itself is in country-codes.ts, shared with the pages), and
// the subdivisions an address of the US or Canada must name.
import { z } from "zod";
import { COUNTRIES, SUBDIVISION_NAMES } from "./country-codes.ts";

export { COUNTRIES };

/** An address's country, upper-cased first as Polar's Address does ("us" is "US"). */
export const countrySchema = z.preprocess(
  (v) => (typeof v === "string" ? v.toUpperCase() : v),
  z.enum(COUNTRIES),
);

/** The ISO 3166-2 codes Polar accepts as an address's state: its USState and CASubdivision. */
export const SUBDIVISIONS: Readonly<Record<string, ReadonlySet<string>>> = Object.fromEntries(
  Object.entries(SUBDIVISION_NAMES).map(([country, names]) => [
    country,
    new Set(Object.keys(names).map((code) => `${country}-${code}`)),
  ]),
);
