// Billing periods: a start plus N days, weeks, months or years, in UTC. Month arithmetic clamps to
// the month's last day (Jan 31 + 1 month = Feb 28/29), as card processors bill.
export type Interval = "day" | "week" | "month" | "year";

/**
 * `start` plus `count` intervals. A month or year lands on `anchorDay` (the subscription's, as
 * Polar's anchor_day) or else start's day, on the month's last day when it is shorter: a period
 * from Feb 28 anchored on the 31st ends on Mar 31, not Mar 28. Never before start's own day: a
 * period end moved off its anchor (by hand, before anchors were kept) is not shortened.
 */
export function addInterval(
  start: Date,
  interval: Interval,
  count = 1,
  anchorDay: number | null = null,
): Date {
  const d = new Date(start.getTime());
  switch (interval) {
    case "day":
      d.setUTCDate(d.getUTCDate() + count);
      return d;
    case "week":
      d.setUTCDate(d.getUTCDate() + 7 * count);
      return d;
    case "month":
    case "year": {
      const months = interval === "year" ? 12 * count : count;
      // The anchor only lifts a day a short month cut (Feb 28 → Mar 31), never shortens a period.
      const day = Math.max(anchorDay ?? 0, d.getUTCDate());
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, last));
      return d;
    }
  }
}

// Days-based and months-based intervals only divide within their own family (a week is not a
// whole number of months).
const LENGTH: Record<Interval, { unit: "day" | "month"; n: number }> = {
  day: { unit: "day", n: 1 },
  week: { unit: "day", n: 7 },
  month: { unit: "month", n: 1 },
  year: { unit: "month", n: 12 },
};

/** Whether N meter intervals fit exactly into one billing interval (N ≥ 1). */
export function dividesEvenly(
  meter: { interval: Interval; count: number },
  billing: { interval: Interval; count: number },
): boolean {
  const m = LENGTH[meter.interval];
  const b = LENGTH[billing.interval];
  if (m.unit !== b.unit) return false;
  const total = b.n * billing.count;
  const part = m.n * meter.count;
  return part <= total && total % part === 0;
}

/**
 * The end of the meter cycle that follows `after` within the period that started at
 * `periodStart`: boundaries are counted from the period start (start + k × interval, so month
 * clamping does not drift), and the last one is the period end.
 */
export function nextMeterBoundary(
  periodStart: Date,
  periodEnd: Date,
  meter: { interval: Interval; count: number },
  after: Date,
): Date {
  for (let k = 1; ; k++) {
    const boundary = addInterval(periodStart, meter.interval, meter.count * k);
    if (boundary >= periodEnd) return periodEnd;
    if (boundary > after) return boundary;
  }
}

/** A product's meter cycle, when it has one. */
export function meterCycleOf(product: {
  meter_interval?: string | null;
  meter_interval_count?: number | null;
}): { interval: Interval; count: number } | null {
  if (!product.meter_interval) return null;
  return {
    interval: product.meter_interval as Interval,
    count: product.meter_interval_count ?? 1,
  };
}

/** The first meter cycle of a period; nulls when the product has no meter cycle of its own. */
export function firstMeterPeriod(
  meter: { interval: Interval; count: number } | null,
  periodStart: Date,
  periodEnd: Date,
): { currentMeterPeriodStart: Date | null; currentMeterPeriodEnd: Date | null } {
  if (!meter) return { currentMeterPeriodStart: null, currentMeterPeriodEnd: null };
  return {
    currentMeterPeriodStart: periodStart,
    currentMeterPeriodEnd: nextMeterBoundary(periodStart, periodEnd, meter, periodStart),
  };
}
