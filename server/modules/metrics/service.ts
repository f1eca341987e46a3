// Polar's metrics over till's orders, subscriptions, seats and checkouts: each period's values from SQL,
// then the running sums, the ratios and the totals over the range.
import type { Db } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import * as repo from "./repository.ts";
import {
  INTERVAL_LIMITS,
  METRICS,
  type MetricsLimitsOut,
  type MetricsQuery,
  type MetricsResponseOut,
} from "./schemas.ts";

export interface MetricsDeps {
  db: Db;
  /** The period aggregates scan orders and subscriptions: a replica when there is one. */
  read: Db;
}

const DAY_MS = 86_400_000;
const n = (v: string | number | null | undefined) => Number(v ?? 0);
const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export async function getMetrics(
  deps: MetricsDeps,
  ctx: AuthContext,
  q: MetricsQuery,
): Promise<MetricsResponseOut> {
  const days = (Date.parse(q.end_date) - Date.parse(q.start_date)) / DAY_MS;
  if (days < 0)
    throw RequestValidationError.field(
      ["query", "end_date"],
      "The end date is before the start date.",
    );
  const limit = INTERVAL_LIMITS[q.interval];
  if (days < limit.min_days || days > limit.max_days)
    throw RequestValidationError.field(
      ["query", "interval"],
      `A ${q.interval} interval covers between ${limit.min_days} and ${limit.max_days} days; this range is ${days}.`,
    );
  const wanted = q.metrics ? new Set(q.metrics) : null;
  const unknown = q.metrics?.filter((m) => !METRICS.some((d) => d.slug === m)) ?? [];
  if (unknown.length)
    throw RequestValidationError.field(
      ["query", "metrics"],
      `Unknown metrics: ${unknown.join(", ")}.`,
    );

  const rows = await repo.periodRows(
    deps.read,
    {
      organizationIds: scopeOfCaller(ctx, q.organization_id),
      productIds: q.product_id ?? null,
      customerIds: q.customer_id ?? null,
      billingTypes: q.billing_type ?? null,
    },
    { start: q.start_date, end: q.end_date, interval: q.interval, timezone: q.timezone },
  );

  let cumulative = 0;
  let netCumulative = 0;
  let cumulativeCosts = 0;
  const periods = rows.map((r) => {
    const orders = n(r.orders);
    const revenue = n(r.revenue);
    const netRevenue = n(r.net_revenue);
    cumulative += revenue;
    netCumulative += netRevenue;
    const mrr = n(r.monthly_recurring_revenue);
    const costs = n(r.costs);
    cumulativeCosts += costs;
    const users = n(r.active_user_by_event);
    const seats = n(r.seats_total);
    const claimed = n(r.seats_claimed);
    const arpu = Math.round(ratio(mrr, n(r.active_customers)));
    const churnRate = ratio(n(r.churned_subscriptions), n(r.active_at_start));
    const reasons =
      typeof r.canceled_by_reason === "string"
        ? (JSON.parse(r.canceled_by_reason) as Record<string, number>)
        : (r.canceled_by_reason ?? {});
    const values: Record<string, number> = {
      orders,
      revenue,
      net_revenue: netRevenue,
      cumulative_revenue: cumulative,
      net_cumulative_revenue: netCumulative,
      average_order_value: Math.round(ratio(revenue, orders)),
      net_average_order_value: Math.round(ratio(netRevenue, orders)),
      one_time_products: n(r.one_time_products),
      one_time_products_revenue: n(r.one_time_products_revenue),
      one_time_products_net_revenue: n(r.one_time_products_net_revenue),
      new_subscriptions: n(r.new_subscriptions),
      new_subscriptions_revenue: n(r.new_subscriptions_revenue),
      new_subscriptions_net_revenue: n(r.new_subscriptions_net_revenue),
      renewed_subscriptions: n(r.renewed_subscriptions),
      renewed_subscriptions_revenue: n(r.renewed_subscriptions_revenue),
      renewed_subscriptions_net_revenue: n(r.renewed_subscriptions_net_revenue),
      active_subscriptions: n(r.active_subscriptions),
      monthly_recurring_revenue: mrr,
      annual_recurring_revenue: mrr * 12,
      // MRR per paying customer at the end of the period.
      average_revenue_per_user: arpu,
      churn_rate: churnRate,
      // What a customer is worth over their life: revenue per user over the churn rate.
      ltv: churnRate > 0 ? Math.round(arpu / churnRate) : 0,
      committed_subscriptions: n(r.committed_subscriptions),
      committed_monthly_recurring_revenue: n(r.committed_monthly_recurring_revenue),
      committed_annual_recurring_revenue: n(r.committed_monthly_recurring_revenue) * 12,
      trial_monthly_recurring_revenue: n(r.trial_monthly_recurring_revenue),
      trial_committed_monthly_recurring_revenue: n(r.trial_committed_monthly_recurring_revenue),
      costs,
      cumulative_costs: cumulativeCosts,
      cost_per_user: Math.round(ratio(costs, users)),
      active_user_by_event: users,
      gross_margin: revenue - costs,
      gross_margin_percentage: ratio(revenue - costs, revenue),
      cashflow: netRevenue - costs,
      canceled_subscriptions: n(r.canceled_subscriptions),
      churned_subscriptions: n(r.churned_subscriptions),
      seats_total: seats,
      seats_claimed: claimed,
      seats_pending: seats - claimed,
      seat_customers: n(r.seat_customers),
      new_seat_customers: n(r.new_seat_customers),
      churned_seat_customers: n(r.churned_seat_customers),
      average_seats_per_customer: ratio(seats, n(r.seat_customers)),
      seat_utilization_rate: ratio(claimed, seats),
      checkouts: n(r.checkouts),
      succeeded_checkouts: n(r.succeeded_checkouts),
      checkouts_conversion: ratio(n(r.succeeded_checkouts), n(r.checkouts)),
    };
    for (const d of METRICS)
      if (d.slug.startsWith("canceled_subscriptions_"))
        values[d.slug] = n(reasons[d.slug.slice("canceled_subscriptions_".length)]);
    return { start: new Date(r.start_at), values };
  });

  const shown = METRICS.filter((d) => !wanted || wanted.has(d.slug));
  const sum = (slug: string) => periods.reduce((total, p) => total + (p.values[slug] ?? 0), 0);
  const last = (slug: string) => periods.at(-1)?.values[slug] ?? 0;
  const totalsAll: Record<string, number> = {};
  for (const d of METRICS) totalsAll[d.slug] = d.total === "sum" ? sum(d.slug) : last(d.slug);
  totalsAll.average_order_value = Math.round(ratio(sum("revenue"), sum("orders")));
  totalsAll.net_average_order_value = Math.round(ratio(sum("net_revenue"), sum("orders")));
  totalsAll.checkouts_conversion = ratio(sum("succeeded_checkouts"), sum("checkouts"));
  totalsAll.churn_rate = ratio(sum("churned_subscriptions"), n(rows[0]?.active_at_start));
  totalsAll.cost_per_user = Math.round(ratio(sum("costs"), sum("active_user_by_event")));
  totalsAll.gross_margin_percentage = ratio(sum("gross_margin"), sum("revenue"));

  const pick = (values: Record<string, number>) =>
    Object.fromEntries(shown.map((d) => [d.slug, values[d.slug] ?? 0]));
  return {
    // TypeScript cannot say "a string timestamp, every other field a number"; the schema does.
    periods: periods.map(
      (p) =>
        ({
          timestamp: p.start.toISOString(),
          ...pick(p.values),
        }) as MetricsResponseOut["periods"][number],
    ),
    totals: pick(totalsAll),
    metrics: Object.fromEntries(
      shown.map((d) => [d.slug, { slug: d.slug, display_name: d.display_name, type: d.type }]),
    ),
  };
}

export async function getLimits(deps: MetricsDeps, ctx: AuthContext): Promise<MetricsLimitsOut> {
  const first = await repo.earliestOrganization(deps.db, scopeOfCaller(ctx));
  return {
    min_date: (first ?? new Date()).toISOString().slice(0, 10),
    intervals: INTERVAL_LIMITS,
  };
}

/** The same periods as CSV: a timestamp column, then one column per metric. */
export async function exportMetrics(deps: MetricsDeps, ctx: AuthContext, q: MetricsQuery) {
  const result = await getMetrics(deps, ctx, q);
  const slugs = Object.keys(result.metrics);
  const lines = [
    ["timestamp", ...slugs].join(","),
    ...result.periods.map((p) =>
      [p.timestamp, ...slugs.map((s) => String((p as Record<string, unknown>)[s] ?? ""))].join(","),
    ),
  ];
  return `${lines.join("\n")}\n`;
}
