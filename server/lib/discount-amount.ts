// What a percentage discount takes off an amount, as Polar's DiscountPercentage.get_discount_amount
// computes it: the float product amount × (basis_points / 10000), rounded half away from zero by
// polar_round. The float matters: 35% of 1290 is 451.49999999999994 there, so 451, not 452.

/** Polar's polar_round: to the nearest integer, .5 away from zero. */
function polarRound(n: number): number {
  const fraction = n - Math.trunc(n);
  if (n >= 0) return fraction >= 0.5 ? Math.ceil(n) : Math.floor(n);
  return fraction <= -0.5 ? Math.floor(n) : Math.ceil(n);
}

export function percentageDiscountAmount(amount: number, basisPoints: number): number {
  return polarRound(amount * (basisPoints / 10_000));
}
