// Overview: revenue, MRR, orders and subscriptions over a chosen period (GET /v1/metrics/ in the
// browser's timezone), sales per product, and the first steps in the words of the `till` CLI.
import { lazy, Suspense, useState } from "react";
import { type Page, useApi, withQuery } from "../api.ts";
import { useOrg } from "../auth.ts";
import { CopyButton, ErrorNote, Link, money } from "../ui.tsx";

const MetricChart = lazy(() => import("../charts.tsx").then((m) => ({ default: m.MetricChart })));

interface Metrics {
  periods: ({ timestamp: string } & Record<string, number>)[];
  totals: Record<string, number>;
}

const PERIODS = [
  { id: "7d", label: "7 days", days: 6, interval: "day" },
  { id: "30d", label: "30 days", days: 29, interval: "day" },
  { id: "90d", label: "90 days", days: 89, interval: "week" },
  { id: "12m", label: "12 months", days: 364, interval: "month" },
] as const;
type PeriodId = (typeof PERIODS)[number]["id"];

const SHOWN = [
  "revenue",
  "orders",
  "monthly_recurring_revenue",
  "active_subscriptions",
  "checkouts_conversion",
];

function isoDay(d: Date): string {
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

function metricsPath(orgId: string, period: (typeof PERIODS)[number], productId?: string) {
  const end = new Date();
  const start = new Date(end.getTime() - period.days * 86_400_000);
  const q = new URLSearchParams({
    organization_id: orgId,
    start_date: isoDay(start),
    end_date: isoDay(end),
    interval: period.interval,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
  });
  for (const m of SHOWN) q.append("metrics", m);
  if (productId) q.set("product_id", productId);
  return `/v1/metrics/?${q.toString()}`;
}

function label(iso: string, interval: string): string {
  const d = new Date(iso);
  return interval === "month"
    ? d.toLocaleDateString(undefined, { month: "short", year: "2-digit" })
    : d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

export function HomePage() {
  const org = useOrg();
  const [periodId, setPeriodId] = useState<PeriodId>("30d");
  const period = PERIODS.find((p) => p.id === periodId) ?? PERIODS[1];
  const metrics = useApi<Metrics>(metricsPath(org.id, period));
  const points = (slug: string) =>
    (metrics.data?.periods ?? []).map((p) => ({
      label: label(p.timestamp, period.interval),
      value: p[slug] ?? 0,
    }));
  const totals = metrics.data?.totals;
  const usd = (v: number) => money(v);
  const count = (v: number) => String(Math.round(v));
  return (
    <>
      <header className="page-header">
        <h1>{org.name}</h1>
        <fieldset className="period-picker">
          <legend className="sr-only">Period</legend>
          {PERIODS.map((p) => (
            <button
              key={p.id}
              type="button"
              aria-pressed={p.id === periodId}
              onClick={() => setPeriodId(p.id)}
            >
              {p.label}
            </button>
          ))}
        </fieldset>
      </header>
      {metrics.error ? <ErrorNote error={metrics.error} /> : null}
      <div className="grid four" aria-busy={metrics.loading}>
        <Stat label="Revenue" value={totals ? usd(totals.revenue ?? 0) : "…"} to="/orders" />
        <Stat
          label="MRR"
          value={totals ? usd(totals.monthly_recurring_revenue ?? 0) : "…"}
          to="/subscriptions"
        />
        <Stat label="Orders" value={totals ? count(totals.orders ?? 0) : "…"} to="/orders" />
        <Stat
          label="Active subscriptions"
          value={totals ? count(totals.active_subscriptions ?? 0) : "…"}
          to="/subscriptions"
        />
      </div>
      <Suspense fallback={<div className="charts" aria-busy="true" />}>
        <div className="charts">
          <MetricChart title="Revenue" kind="bar" points={points("revenue")} format={usd} />
          <MetricChart
            title="Monthly recurring revenue"
            kind="line"
            points={points("monthly_recurring_revenue")}
            format={usd}
          />
          <MetricChart title="Orders" kind="bar" points={points("orders")} format={count} integer />
          <MetricChart
            title="Active subscriptions"
            kind="line"
            points={points("active_subscriptions")}
            format={count}
            integer
          />
        </div>
      </Suspense>
      <ProductSales period={period} />
      <GetStarted />
    </>
  );
}

function Stat(props: { label: string; value: string; to: string }) {
  return (
    <Link to={props.to} className="stat card">
      <span className="muted">{props.label}</span>
      <strong className="big-number">{props.value}</strong>
    </Link>
  );
}

interface ProductRow {
  id: string;
  name: string;
}

/** Sales per product over the period (the ten most recent products). */
function ProductSales({ period }: { period: (typeof PERIODS)[number] }) {
  const org = useOrg();
  const products = useApi<Page<ProductRow>>(
    withQuery("/v1/products/", { organization_id: org.id, limit: 10, is_archived: false }),
  );
  const items = products.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="product-sales">
      <h2 id="product-sales">Sales by product</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Orders</th>
            <th scope="col">Revenue</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <ProductSalesRow key={p.id} product={p} period={period} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ProductSalesRow(props: { product: ProductRow; period: (typeof PERIODS)[number] }) {
  const org = useOrg();
  const m = useApi<Metrics>(metricsPath(org.id, props.period, props.product.id));
  const t = m.data?.totals;
  return (
    <tr>
      <td>
        <Link to={`/products/${props.product.id}`}>{props.product.name}</Link>
      </td>
      <td>{t ? Math.round(t.orders ?? 0) : "…"}</td>
      <td>{t ? money(t.revenue ?? 0) : "…"}</td>
    </tr>
  );
}

const STEPS: [string, string][] = [
  ["Log in from your terminal", "till login"],
  ["Create a product", "till products create --name Pro --price 1500 --recurring month"],
  ["Count usage with a meter", "till meters create --name 'API calls' --filter 'name eq api_call'"],
  ["Sell it", "till checkouts create --product <id> --open"],
];

function GetStarted() {
  return (
    <section className="card stack" aria-labelledby="get-started">
      <h2 id="get-started">Get started</h2>
      <ol className="steps">
        {STEPS.map(([what, cmd]) => (
          <li key={cmd}>
            <span>{what}</span>
            <div className="command">
              <code>{cmd}</code>
              <CopyButton text={cmd} label={`Copy: ${cmd}`} />
            </div>
          </li>
        ))}
      </ol>
      <p className="muted">
        The API is Polar's v1 at <code>{location.origin}/v1/</code>: point Polar's SDK at it with an{" "}
        <Link to="/tokens">access token</Link>.
      </p>
    </section>
  );
}
