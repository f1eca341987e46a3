// Seat-based prices: the tiers by seat count (Polar's ProductPriceSeatTiers), the rules a set of
// tiers must follow, and what a number of seats costs. Volume tiers price every seat at the rate of
// the tier the count falls in; graduated tiers price each tier's range at its own rate. All amounts
// are integer minor units.
import { z } from "zod";
import type { SeatTiers } from "../../../db/schema/index.ts";
import { RequestValidationError } from "../../lib/errors.ts";

const MAXIMUM_AMOUNT = 99_999_999;

/** A number of seats a checkout sells or a subscription changes to. */
export const seatCount = z.number().int().min(1).max(10_000);

export const seatTiersCreate = z.object({
  seat_tier_type: z.enum(["volume", "graduated"]).default("volume"),
  tiers: z
    .array(
      z.object({
        min_seats: z.number().int().min(1),
        max_seats: z.number().int().min(1).nullish(),
        price_per_seat: z.number().int().min(0).max(MAXIMUM_AMOUNT),
      }),
    )
    .min(1),
});

export const seatTiersSchema = z
  .object({
    seat_tier_type: z.enum(["volume", "graduated"]),
    tiers: z.array(
      z
        .object({
          min_seats: z.number().int(),
          max_seats: z.number().int().nullable(),
          price_per_seat: z.number().int(),
        })
        .meta({ id: "ProductPriceSeatTier" }),
    ),
    minimum_seats: z.number().int(),
    maximum_seats: z.number().int().nullable(),
  })
  .meta({ id: "ProductPriceSeatTiers-Output" });

/** Sorted, contiguous from the first tier's minimum, only the last one open-ended. */
export function normalizeSeatTiers(
  input: z.output<typeof seatTiersCreate>,
  loc: (string | number)[],
): SeatTiers {
  const tiers = input.tiers
    .map((t) => ({
      min_seats: t.min_seats,
      max_seats: t.max_seats ?? null,
      price_per_seat: t.price_per_seat,
    }))
    .sort((a, b) => a.min_seats - b.min_seats);
  const at = [...loc, "seat_tiers", "tiers"];
  tiers.forEach((tier, i) => {
    if (tier.max_seats !== null && tier.max_seats < tier.min_seats)
      throw RequestValidationError.field(
        [...at, i, "max_seats"],
        "max_seats must be greater than or equal to min_seats",
        "greater_than_equal",
      );
    const next = tiers[i + 1];
    if (!next) return;
    if (tier.max_seats === null)
      throw RequestValidationError.field(
        [...at, i, "max_seats"],
        "Only the last tier may have no max_seats.",
      );
    if (next.min_seats !== tier.max_seats + 1)
      throw RequestValidationError.field(
        [...at, i + 1, "min_seats"],
        `Tiers must be contiguous: this tier must start at ${tier.max_seats + 1} seats.`,
      );
  });
  return { seat_tier_type: input.seat_tier_type, tiers };
}

export function seatBounds(tiers: SeatTiers): { minimum: number; maximum: number | null } {
  return {
    minimum: tiers.tiers[0]?.min_seats ?? 1,
    maximum: tiers.tiers.at(-1)?.max_seats ?? null,
  };
}

/** What `seats` seats cost per period (or once), or null when the count is outside the tiers. */
export function seatAmount(tiers: SeatTiers, seats: number): number | null {
  const { minimum, maximum } = seatBounds(tiers);
  if (!Number.isInteger(seats) || seats < minimum || (maximum !== null && seats > maximum))
    return null;
  if (tiers.seat_tier_type === "graduated") {
    let total = 0;
    for (const t of tiers.tiers) {
      const top = t.max_seats === null ? seats : Math.min(seats, t.max_seats);
      if (top >= t.min_seats) total += (top - t.min_seats + 1) * t.price_per_seat;
    }
    return total;
  }
  const tier = tiers.tiers.find(
    (t) => seats >= t.min_seats && (t.max_seats === null || seats <= t.max_seats),
  );
  return tier ? tier.price_per_seat * seats : null;
}

export function seatTiersOut(tiers: SeatTiers): z.output<typeof seatTiersSchema> {
  const { minimum, maximum } = seatBounds(tiers);
  return {
    seat_tier_type: tiers.seat_tier_type,
    tiers: tiers.tiers.map((t) => ({ ...t })),
    minimum_seats: minimum,
    maximum_seats: maximum,
  };
}
