// GET /v1/metrics/ query and answer (Polar's MetricsResponse): one row per period in the requested
// timezone, totals over the whole range, and what each returned metric is.
import { z } from "zod";
import { isTimeZoneName } from "../../lib/timezone.ts";
import { timestamp } from "../../lib/wire.ts";
import { queryList } from "../../lib/query.ts";

export const INTERVALS = ["hour", "day", "week", "month", "year"] as const;
export type Interval = (typeof INTERVALS)[number];

/** Days a range may span for each interval (Polar's limits: enough periods, not too many). */
export const INTERVAL_LIMITS: Record<Interval, { min_days: number; max_days: number }> = {
  hour: { min_days: 0, max_days: 7 },
  day: { min_days: 0, max_days: 366 },
  week: { min_days: 14, max_days: 365 * 4 },
  month: { min_days: 60, max_days: 365 * 10 },
  year: { min_days: 366, max_days: 365 * 10 },
};

const date = z.iso.date();

export const metricsQuery = z.object({
  start_date: date,
  end_date: date,
  interval: z.enum(INTERVALS),
  timezone: z.string().min(1).refine(isTimeZoneName, "Unknown timezone.").default("UTC"),
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  billing_type: queryList(z.enum(["one_time", "recurring"])).optional(),
  metrics: queryList(z.string().min(1)).optional(),
});
export type MetricsQuery = z.output<typeof metricsQuery>;

export type MetricType = "scalar" | "currency" | "percentage";

/** The metrics till computes, with how their totals combine over the range. */
export const METRICS: {
  slug: string;
  display_name: string;
  type: MetricType;
  /** sum: flows add up; last: stocks take the last period; ratio: recomputed from the totals. */
  total: "sum" | "last" | "ratio";
}[] = [
  { slug: "orders", display_name: "Orders", type: "scalar", total: "sum" },
  { slug: "revenue", display_name: "Revenue", type: "currency", total: "sum" },
  { slug: "net_revenue", display_name: "Net Revenue", type: "currency", total: "sum" },
  {
    slug: "cumulative_revenue",
    display_name: "Cumulative Revenue",
    type: "currency",
    total: "last",
  },
  {
    slug: "net_cumulative_revenue",
    display_name: "Net Cumulative Revenue",
    type: "currency",
    total: "last",
  },
  {
    slug: "average_order_value",
    display_name: "Average Order Value",
    type: "currency",
    total: "ratio",
  },
  {
    slug: "net_average_order_value",
    display_name: "Net Average Order Value",
    type: "currency",
    total: "ratio",
  },
  { slug: "one_time_products", display_name: "One-Time Products", type: "scalar", total: "sum" },
  {
    slug: "one_time_products_revenue",
    display_name: "One-Time Products Revenue",
    type: "currency",
    total: "sum",
  },
  {
    slug: "one_time_products_net_revenue",
    display_name: "One-Time Products Net Revenue",
    type: "currency",
    total: "sum",
  },
  { slug: "new_subscriptions", display_name: "New Subscriptions", type: "scalar", total: "sum" },
  {
    slug: "new_subscriptions_revenue",
    display_name: "New Subscriptions Revenue",
    type: "currency",
    total: "sum",
  },
  {
    slug: "new_subscriptions_net_revenue",
    display_name: "New Subscriptions Net Revenue",
    type: "currency",
    total: "sum",
  },
  {
    slug: "renewed_subscriptions",
    display_name: "Renewed Subscriptions",
    type: "scalar",
    total: "sum",
  },
  {
    slug: "renewed_subscriptions_revenue",
    display_name: "Renewed Subscriptions Revenue",
    type: "currency",
    total: "sum",
  },
  {
    slug: "renewed_subscriptions_net_revenue",
    display_name: "Renewed Subscriptions Net Revenue",
    type: "currency",
    total: "sum",
  },
  {
    slug: "active_subscriptions",
    display_name: "Active Subscriptions",
    type: "scalar",
    total: "last",
  },
  {
    slug: "monthly_recurring_revenue",
    display_name: "Monthly Recurring Revenue",
    type: "currency",
    total: "last",
  },
  {
    slug: "annual_recurring_revenue",
    display_name: "Annual Recurring Revenue",
    type: "currency",
    total: "last",
  },
  {
    slug: "average_revenue_per_user",
    display_name: "Average Revenue Per User",
    type: "currency",
    total: "last",
  },
  {
    slug: "canceled_subscriptions",
    display_name: "Canceled Subscriptions",
    type: "scalar",
    total: "sum",
  },
  ...(
    [
      "customer_service",
      "low_quality",
      "missing_features",
      "switched_service",
      "too_complex",
      "too_expensive",
      "unused",
      "other",
    ] as const
  ).map((reason) => ({
    slug: `canceled_subscriptions_${reason}`,
    display_name: `Canceled Subscriptions: ${reason.replace("_", " ")}`,
    type: "scalar" as const,
    total: "sum" as const,
  })),
  {
    slug: "churned_subscriptions",
    display_name: "Churned Subscriptions",
    type: "scalar",
    total: "sum",
  },
  { slug: "churn_rate", display_name: "Churn Rate", type: "percentage", total: "ratio" },
  { slug: "ltv", display_name: "Lifetime Value", type: "currency", total: "last" },
  ...(
    [
      ["committed_subscriptions", "Committed Subscriptions", "scalar"],
      ["committed_monthly_recurring_revenue", "Committed MRR", "currency"],
      ["committed_annual_recurring_revenue", "Committed ARR", "currency"],
      ["trial_monthly_recurring_revenue", "Trial MRR", "currency"],
      ["trial_committed_monthly_recurring_revenue", "Trial Committed MRR", "currency"],
    ] as const
  ).map(([slug, display_name, type]) => ({ slug, display_name, type, total: "last" as const })),
  // Costs are what usage events report in Polar's `_cost` metadata.
  { slug: "costs", display_name: "Costs", type: "currency", total: "sum" },
  { slug: "cumulative_costs", display_name: "Cumulative Costs", type: "currency", total: "last" },
  { slug: "cost_per_user", display_name: "Cost Per User", type: "currency", total: "ratio" },
  { slug: "active_user_by_event", display_name: "Active Users", type: "scalar", total: "sum" },
  { slug: "gross_margin", display_name: "Gross Margin", type: "currency", total: "sum" },
  {
    slug: "gross_margin_percentage",
    display_name: "Gross Margin %",
    type: "percentage",
    total: "ratio",
  },
  { slug: "cashflow", display_name: "Cashflow", type: "currency", total: "sum" },
  // Seats given (customer seats), as at each period's end; new and churned buyers add up.
  ...(
    [
      ["seats_total", "Total Seats", "last"],
      ["seats_claimed", "Claimed Seats", "last"],
      ["seats_pending", "Pending Seats", "last"],
      ["seat_customers", "Seat Customers", "last"],
      ["new_seat_customers", "New Seat Customers", "sum"],
      ["churned_seat_customers", "Churned Seat Customers", "sum"],
      ["average_seats_per_customer", "Average Seats Per Customer", "last"],
    ] as const
  ).map(([slug, display_name, total]) => ({
    slug,
    display_name,
    type: "scalar" as const,
    total,
  })),
  {
    slug: "seat_utilization_rate",
    display_name: "Seat Utilization Rate",
    type: "percentage",
    total: "last",
  },
  { slug: "checkouts", display_name: "Checkouts", type: "scalar", total: "sum" },
  {
    slug: "succeeded_checkouts",
    display_name: "Succeeded Checkouts",
    type: "scalar",
    total: "sum",
  },
  {
    slug: "checkouts_conversion",
    display_name: "Checkouts Conversion Rate",
    type: "percentage",
    total: "ratio",
  },
];

const metricSchema = z
  .object({
    slug: z.string(),
    display_name: z.string(),
    type: z.enum(["scalar", "currency", "percentage"]).meta({ id: "MetricType" }),
  })
  .meta({ id: "Metric" });

// Polar lists each metric as a field; till computes a set of its own, so the fields are open-ended.
export const metricsResponseSchema = z
  .object({
    periods: z.array(
      z.object({ timestamp }).catchall(z.number()).meta({
        id: "MetricPeriod",
      }),
    ),
    totals: z.record(z.string(), z.number()).meta({ id: "MetricsTotals" }),
    metrics: z.record(z.string(), metricSchema).meta({ id: "Metrics" }),
  })
  .meta({ id: "MetricsResponse" });
export type MetricsResponseOut = z.output<typeof metricsResponseSchema>;

const intervalLimit = z
  .object({ min_days: z.number().int(), max_days: z.number().int() })
  .meta({ id: "MetricsIntervalLimit" });
export const metricsLimitsSchema = z
  .object({
    min_date: date,
    intervals: z
      .object(
        Object.fromEntries(INTERVALS.map((i) => [i, intervalLimit])) as Record<
          Interval,
          typeof intervalLimit
        >,
      )
      .meta({ id: "MetricsIntervalsLimits" }),
  })
  .meta({ id: "MetricsLimits" });
export type MetricsLimitsOut = z.output<typeof metricsLimitsSchema>;
