// The country codes as a schema (the list itself is in country-codes.ts, shared with the pages), and
// the subdivisions an address of the US or Canada must name.
import { z } from "zod";
import { COUNTRIES } from "./country-codes.ts";

export { COUNTRIES };

export const countrySchema = z.enum(COUNTRIES);

const prefixed = (country: string, codes: string) =>
  new Set(codes.split(" ").map((code) => `${country}-${code}`));

/** The ISO 3166-2 codes Polar accepts as an address's state: its USState and CASubdivision. */
export const SUBDIVISIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  US: prefixed(
    "US",
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY " +
      "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC",
  ),
  CA: prefixed("CA", "AB BC MB NB NL NS NT NU ON PE QC SK YT"),
};
