// The country codes as a schema (the list itself is in country-codes.ts, shared with the pages).
import { z } from "zod";
import { COUNTRIES } from "./country-codes.ts";

export { COUNTRIES };

export const countrySchema = z.enum(COUNTRIES);
