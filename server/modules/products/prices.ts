// Prices by amount_type (fixed, custom, free, metered_unit, seat_based): request shapes, the rules a product's
// set of prices must follow, and the serializer. Rows are never updated in place; see service.ts.
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import type { productPrices } from "../../../db/schema/index.ts";
import { fromZodError, RequestValidationError } from "../../lib/errors.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { timestamped } from "../../lib/wire.ts";
import { findMeter, type MeterRow } from "../meters/queries.ts";
import { CURRENCIES, minimumChargeOf } from "./currencies.ts";
import {
  normalizeSeatTiers,
  seatTiersCreate,
  seatTiersOut,
  seatTiersSchema,
} from "./seat-tiers.ts";

export type PriceRow = typeof productPrices.$inferSelect;

const MAXIMUM_AMOUNT = 99_999_999;
const INT32_MAX = 2147483647;

const common = {
  price_currency: z.enum(CURRENCIES).default("usd"),
  tax_behavior: z.enum(["location", "inclusive", "exclusive"]).nullish(),
};

// Up to 5 integer digits and 12 decimals, as Polar's ProductPriceMeteredUnitCreate.unit_amount.
const DECIMAL = /^\+?0*(\d{0,5})(?:\.(\d{0,12})0*)?$/;

const unitAmount = z.union([z.number().gt(0), z.string()]).transform((v, ctx) => {
  const text = typeof v === "number" ? v.toFixed(12) : v.trim();
  const m = DECIMAL.exec(text);
  if (!m || !/\d/.test(text) || Number(text) <= 0) {
    ctx.addIssue({
      code: "custom",
      message: "must be a positive decimal with at most 5 integer digits and 12 decimal places",
    });
    return z.NEVER;
  }
  return normalizeDecimal(`${m[1] || "0"}.${m[2] ?? ""}`);
});

export const priceCreate = z.discriminatedUnion("amount_type", [
  z.object({
    amount_type: z.literal("fixed"),
    ...common,
    price_amount: z.number().int().min(0).max(MAXIMUM_AMOUNT),
  }),
  z.object({
    amount_type: z.literal("custom"),
    ...common,
    minimum_amount: z.number().int().min(0).max(MAXIMUM_AMOUNT).default(50),
    maximum_amount: z.number().int().min(1).max(MAXIMUM_AMOUNT).nullish(),
    preset_amount: z.number().int().min(0).max(MAXIMUM_AMOUNT).nullish(),
  }),
  z.object({ amount_type: z.literal("free"), ...common }),
  z.object({
    amount_type: z.literal("metered_unit"),
    ...common,
    meter_id: z.uuid(),
    unit_amount: unitAmount,
    cap_amount: z.number().int().min(0).max(INT32_MAX).nullish(),
  }),
  z.object({ amount_type: z.literal("seat_based"), ...common, seat_tiers: seatTiersCreate }),
]);
export type PriceCreate = z.output<typeof priceCreate>;

const existingPrice = z.object({ id: z.uuid() });
export type PriceItem = { existing: string } | { create: PriceCreate };

/**
 * ProductUpdate.prices mixes ExistingProductPrice ({id}) and new prices; each item is read with the
 * schema its shape calls for, so errors point at the right field instead of "no union matched".
 */
export function parsePriceItems(items: unknown[], loc: (string | number)[]): PriceItem[] {
  return items.map((item, i) => {
    const isNew = item !== null && typeof item === "object" && "amount_type" in item;
    const result = (isNew ? priceCreate : existingPrice).safeParse(item);
    if (!result.success) throw fromZodError(result.error, [...loc, i], item);
    return "id" in result.data && !isNew
      ? { existing: (result.data as { id: string }).id }
      : { create: result.data as PriceCreate };
  });
}

/** Rules on one new price that need its currency. */
function checkAmounts(price: PriceCreate, loc: (string | number)[]): void {
  const min = minimumChargeOf(price.price_currency);
  const payable = (amount: number) => amount === 0 || amount >= min;
  if (price.amount_type === "fixed" && !payable(price.price_amount)) {
    throw RequestValidationError.field(
      [...loc, "price_amount"],
      `must be 0 (free) or at least ${min} in ${price.price_currency}`,
      "greater_than_equal",
    );
  }
  if (price.amount_type === "custom") {
    if (!payable(price.minimum_amount)) {
      throw RequestValidationError.field(
        [...loc, "minimum_amount"],
        `must be 0 (pay what you want) or at least ${min} in ${price.price_currency}`,
        "greater_than_equal",
      );
    }
    const max = price.maximum_amount ?? null;
    if (max !== null && max < Math.max(price.minimum_amount, min)) {
      throw RequestValidationError.field(
        [...loc, "maximum_amount"],
        "must be greater than or equal to the minimum amount",
        "greater_than_equal",
      );
    }
    const preset = price.preset_amount ?? null;
    if (preset !== null) {
      if (!payable(preset) || preset < price.minimum_amount) {
        throw RequestValidationError.field(
          [...loc, "preset_amount"],
          "must be 0 or between the minimum and maximum amounts",
          "greater_than_equal",
        );
      }
      if (max !== null && preset > max)
        throw RequestValidationError.field(
          [...loc, "preset_amount"],
          "must not be greater than the maximum amount",
          "less_than_equal",
        );
    }
  }
}

export interface PriceSetItem {
  /** Where the price came from in the request, for error locations. */
  loc: (string | number)[];
  amountType: string;
  currency: string;
  meterId: string | null;
}

const STATIC = new Set(["fixed", "custom", "free", "seat_based"]);

/** Rules on the whole set of a product's active prices (kept and new together). */
export function checkPriceSet(
  items: PriceSetItem[],
  recurring: boolean,
  loc: (string | number)[],
): void {
  if (items.length === 0)
    throw RequestValidationError.field(loc, "A product needs at least one price.", "too_short");
  const staticPerCurrency = new Set<string>();
  const meteredPerCurrency = new Set<string>();
  for (const item of items) {
    if (STATIC.has(item.amountType)) {
      if (staticPerCurrency.has(item.currency)) {
        throw RequestValidationError.field(
          item.loc,
          `A product may have only one fixed, custom, free or seat-based price per currency (${item.currency}).`,
        );
      }
      staticPerCurrency.add(item.currency);
    } else if (item.amountType === "metered_unit") {
      if (!recurring)
        throw RequestValidationError.field(
          [...item.loc, "amount_type"],
          "Metered prices are only allowed on recurring products.",
        );
      const key = `${item.meterId}:${item.currency}`;
      if (meteredPerCurrency.has(key))
        throw RequestValidationError.field(
          [...item.loc, "meter_id"],
          "A product may have only one metered price per meter and currency.",
        );
      meteredPerCurrency.add(key);
    }
  }
}

/** Validates new prices against the organization's meters and returns their rows, ready to insert. */
export async function newPriceRows(
  db: Db,
  organizationId: string,
  productId: string,
  prices: { price: PriceCreate; loc: (string | number)[] }[],
  now: Date,
) {
  const rows: (typeof productPrices.$inferInsert)[] = [];
  for (const { price, loc } of prices) {
    checkAmounts(price, loc);
    const row: typeof productPrices.$inferInsert = {
      productId,
      position: Number(loc.at(-1)),
      amountType: price.amount_type,
      priceCurrency: price.price_currency,
      taxBehavior: price.tax_behavior ?? null,
      createdAt: now,
    };
    if (price.amount_type === "fixed") row.priceAmount = price.price_amount;
    if (price.amount_type === "custom") {
      row.minimumAmount = price.minimum_amount;
      row.maximumAmount = price.maximum_amount ?? null;
      row.presetAmount = price.preset_amount ?? null;
    }
    if (price.amount_type === "seat_based")
      row.seatTiers = normalizeSeatTiers(price.seat_tiers, loc);
    if (price.amount_type === "metered_unit") {
      const meter = await findMeter(db, scopeOfResource({ organizationId }), price.meter_id);
      if (!meter || meter.archivedAt)
        throw RequestValidationError.field(
          [...loc, "meter_id"],
          "Meter not found in this organization.",
        );
      row.meterId = meter.id;
      row.unitAmount = price.unit_amount;
      row.capAmount = price.cap_amount ?? null;
    }
    rows.push(row);
  }
  return rows;
}

/** "0.500000000000" → "0.5", "12.000" → "12": numeric as Polar prints a Decimal without noise. */
export function normalizeDecimal(text: string): string {
  if (!text.includes(".")) return text.replace(/^0+(?=\d)/, "");
  const [int, frac] = text.split(".");
  const trimmed = frac!.replace(/0+$/, "");
  const whole = int!.replace(/^0+(?=\d)/, "") || "0";
  return trimmed ? `${whole}.${trimmed}` : whole;
}

const priceBase = {
  ...timestamped,
  source: z.enum(["catalog", "ad_hoc"]),
  price_currency: z.string(),
  tax_behavior: z.enum(["location", "inclusive", "exclusive"]).nullable(),
  is_archived: z.boolean(),
  product_id: z.uuid(),
};
export const priceMeterSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    unit: z.string(),
    custom_label: z.string().nullable(),
    custom_multiplier: z.number().int().nullable(),
  })
  .meta({ id: "ProductPriceMeter" });
export const priceSchema = z
  .discriminatedUnion("amount_type", [
    z
      .object({ ...priceBase, amount_type: z.literal("fixed"), price_amount: z.number().int() })
      .meta({ id: "ProductPriceFixed" }),
    z
      .object({
        ...priceBase,
        amount_type: z.literal("custom"),
        minimum_amount: z.number().int(),
        maximum_amount: z.number().int().nullable(),
        preset_amount: z.number().int().nullable(),
      })
      .meta({ id: "ProductPriceCustom" }),
    z.object({ ...priceBase, amount_type: z.literal("free") }).meta({ id: "ProductPriceFree" }),
    z
      .object({
        ...priceBase,
        amount_type: z.literal("metered_unit"),
        unit_amount: z.string(),
        cap_amount: z.number().int().nullable(),
        meter_id: z.uuid(),
        meter: priceMeterSchema,
      })
      .meta({ id: "ProductPriceMeteredUnit" }),
    z
      .object({ ...priceBase, amount_type: z.literal("seat_based"), seat_tiers: seatTiersSchema })
      .meta({ id: "ProductPriceSeatBased" }),
  ])
  .meta({ id: "ProductPrice" });
export type PriceOut = z.output<typeof priceSchema>;

/**
 * Whether a price charges nothing, as Polar's `is_free`: a free price, a fixed price of 0, or seat
 * tiers that all price a seat at 0 (none yet included). Custom and metered prices never are.
 */
export function priceIsFree(p: PriceOut): boolean {
  if (p.amount_type === "free") return true;
  if (p.amount_type === "fixed") return p.price_amount === 0;
  if (p.amount_type === "seat_based")
    return p.seat_tiers.tiers.every((t) => t.price_per_seat === 0);
  return false;
}

export function priceOut(row: PriceRow, meters: Map<string, MeterRow>): PriceOut {
  const base = {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    source: row.source as "catalog" | "ad_hoc",
    price_currency: row.priceCurrency,
    tax_behavior: row.taxBehavior as PriceOut["tax_behavior"],
    is_archived: row.isArchived,
    product_id: row.productId,
  };
  switch (row.amountType) {
    case "fixed":
      return { ...base, amount_type: "fixed" as const, price_amount: row.priceAmount ?? 0 };
    case "custom":
      return {
        ...base,
        amount_type: "custom" as const,
        minimum_amount: row.minimumAmount ?? 0,
        maximum_amount: row.maximumAmount,
        preset_amount: row.presetAmount,
      };
    case "seat_based":
      return {
        ...base,
        amount_type: "seat_based" as const,
        seat_tiers: seatTiersOut(row.seatTiers ?? { seat_tier_type: "volume", tiers: [] }),
      };
    case "metered_unit": {
      const meter = row.meterId ? meters.get(row.meterId) : undefined;
      return {
        ...base,
        amount_type: "metered_unit" as const,
        unit_amount: normalizeDecimal(row.unitAmount ?? "0"),
        cap_amount: row.capAmount,
        meter_id: row.meterId!,
        meter: meter
          ? {
              id: meter.id,
              name: meter.name,
              unit: meter.unit,
              custom_label: meter.customLabel,
              custom_multiplier: meter.customMultiplier,
            }
          : {
              id: row.meterId!,
              name: "",
              unit: "scalar",
              custom_label: null,
              custom_multiplier: null,
            },
      };
    }
    default:
      return { ...base, amount_type: "free" as const };
  }
}

/** The meters the given prices point at, looked up once each. */
export async function metersOf(
  db: Db,
  scope: OrgScope,
  rows: PriceRow[],
): Promise<Map<string, MeterRow>> {
  const map = new Map<string, MeterRow>();
  for (const id of new Set(rows.map((r) => r.meterId).filter((m): m is string => m !== null))) {
    const meter = await findMeter(db, scope, id);
    if (meter) map.set(id, meter);
  }
  return map;
}
