// Billing periods: a start plus N days, weeks, months or years, in UTC. Month arithmetic clamps to
// the month's last day (Jan 31 + 1 month = Feb 28/29), as card processors bill.
export type Interval = "day" | "week" | "month" | "year";

export function addInterval(start: Date, interval: Interval, count = 1): Date {
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
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, last));
      return d;
    }
  }
}
