// The overview's charts (Recharts), loaded on their own so the rest of the dashboard does not wait
// for the chart library. Colors come from the dashboard's palette (light or dark).
import {
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

export interface ChartPoint {
  label: string;
  value: number;
}

function palette() {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    accent: v("--accent", "#2f4ccf"),
    muted: v("--muted", "#5b6270"),
    line: v("--line", "#e3e6eb"),
  };
}

export function MetricChart(props: {
  title: string;
  kind: "bar" | "line";
  points: ChartPoint[];
  /** Counts: whole-number ticks only. */
  integer?: boolean;
  format(value: number): string;
}) {
  const c = palette();
  const axis = { stroke: c.muted, fontSize: 12, tickLine: false };
  const common = { data: props.points, margin: { top: 8, right: 8, bottom: 0, left: 8 } };
  const tooltip = (
    <Tooltip
      formatter={(v) => [props.format(Number(v)), props.title]}
      contentStyle={{ background: "var(--surface, #fff)", border: `1px solid ${c.line}` }}
    />
  );
  return (
    <figure className="card chart" aria-label={`${props.title} chart`}>
      <figcaption>{props.title}</figcaption>
      <div className="chart-area">
        <ResponsiveContainer width="100%" height={180}>
          {props.kind === "bar" ? (
            <BarChart {...common}>
              <CartesianGrid stroke={c.line} vertical={false} />
              <XAxis dataKey="label" {...axis} />
              <YAxis
                {...axis}
                width={56}
                tickFormatter={props.format}
                allowDecimals={!props.integer}
              />
              {tooltip}
              <Bar
                dataKey="value"
                fill={c.accent}
                radius={[3, 3, 0, 0]}
                isAnimationActive={false}
              />
            </BarChart>
          ) : (
            <LineChart {...common}>
              <CartesianGrid stroke={c.line} vertical={false} />
              <XAxis dataKey="label" {...axis} />
              <YAxis
                {...axis}
                width={56}
                tickFormatter={props.format}
                allowDecimals={!props.integer}
              />
              {tooltip}
              <Line
                dataKey="value"
                stroke={c.accent}
                strokeWidth={2}
                dot={false}
                isAnimationActive={false}
              />
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
