// Meters: list and create, and one meter's quantities over time as an inline SVG bar chart.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Meter, MeterQuantities } from "../types.ts";
import {
  Empty,
  Field,
  FormActions,
  Link,
  PageHeader,
  Resource,
  Table,
  submit,
  useAction,
  when,
} from "../ui.tsx";

function CreateMeter({ onDone }: { onDone: () => void }) {
  const org = useOrg();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const func = String(data.get("func"));
      const property = String(data.get("property") ?? "");
      await api.post("/v1/meters/", {
        organization_id: org.id,
        name: String(data.get("name")),
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: String(data.get("event")) }],
        },
        aggregation: func === "count" ? { func: "count" } : { func, property },
      });
      onDone();
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="New meter">
      <h2>New meter</h2>
      <div className="row">
        <Field
          label="Name"
          name="name"
          required
          placeholder="API calls"
          error={action.fieldError("name")}
        />
        <Field label="Event name" name="event" required placeholder="api_call" />
        <label className="field">
          <span>Aggregation</span>
          <select name="func" defaultValue="count">
            <option value="count">Count events</option>
            <option value="sum">Sum of a property</option>
            <option value="max">Max of a property</option>
            <option value="unique">Unique values of a property</option>
          </select>
        </label>
        <Field
          label="Property"
          name="property"
          placeholder="tokens"
          error={action.fieldError("aggregation.property")}
        />
      </div>
      <FormActions action={action} label="Create meter" onCancel={onDone} />
    </form>
  );
}

export function MetersPage() {
  const org = useOrg();
  const [creating, setCreating] = useState(false);
  const meters = useApi<Page<Meter>>(
    withQuery("/v1/meters/", { organization_id: org.id, limit: 100 }),
  );
  return (
    <>
      <PageHeader title="Meters">
        <button
          type="button"
          className="primary"
          onClick={() => setCreating(true)}
          disabled={creating}
        >
          New meter
        </button>
      </PageHeader>
      {creating ? (
        <CreateMeter
          onDone={() => {
            setCreating(false);
            return meters.reload();
          }}
        />
      ) : null}
      <Resource loaded={meters} what="Meters">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No meters yet"
              command="till meters create --name 'API calls' --filter 'name eq api_call'"
            >
              <p className="muted">
                A meter adds up the usage events you ingest (e.g. API calls, tokens) so you can bill
                for them.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Name", (m) => <Link to={`/meters/${m.id}`}>{m.name}</Link>],
                [
                  "Aggregation",
                  (m) => (
                    <code>
                      {m.aggregation.func}
                      {"property" in m.aggregation ? `(${m.aggregation.property})` : ""}
                    </code>
                  ),
                ],
                ["Created", (m) => <span className="muted">{when(m.created_at)}</span>],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}

/** Bars for each bucket, a baseline and the top value; sized by viewBox so it scales with the card. */
export function QuantityChart({ data, interval }: { data: MeterQuantities; interval: string }) {
  const W = 720;
  const H = 200;
  const pad = 24;
  const max = Math.max(1, ...data.quantities.map((q) => q.quantity));
  const n = Math.max(1, data.quantities.length);
  const slot = (W - pad * 2) / n;
  const label = (iso: string) =>
    new Date(iso).toLocaleDateString(
      undefined,
      interval === "hour" ? { hour: "numeric" } : { month: "short", day: "numeric" },
    );
  return (
    <svg
      className="chart"
      viewBox={`0 0 ${W} ${H + 20}`}
      role="img"
      aria-label={`Quantities per ${interval}, total ${data.total}`}
    >
      <line x1={pad} x2={W - pad} y1={H} y2={H} className="axis" />
      <text x={pad} y={12} className="tick">
        {max.toLocaleString()}
      </text>
      {data.quantities.map((q, i) => {
        const h = (q.quantity / max) * (H - 24);
        return (
          <g key={q.timestamp}>
            <rect
              x={pad + i * slot + slot * 0.15}
              y={H - h}
              width={slot * 0.7}
              height={Math.max(h, q.quantity > 0 ? 1 : 0)}
              rx={2}
              className="bar"
            >
              <title>{`${label(q.timestamp)}: ${q.quantity.toLocaleString()}`}</title>
            </rect>
            {i % Math.ceil(n / 8) === 0 ? (
              <text x={pad + i * slot + slot / 2} y={H + 16} textAnchor="middle" className="tick">
                {label(q.timestamp)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

const RANGES: Record<string, { days: number; interval: string }> = {
  "24h": { days: 1, interval: "hour" },
  "30d": { days: 30, interval: "day" },
  "12w": { days: 84, interval: "week" },
};

export function MeterDetailPage({ id }: { id: string }) {
  const [range, setRange] = useState("30d");
  const meter = useApi<Meter>(`/v1/meters/${id}`);
  const { days, interval } = RANGES[range]!;
  // Whole hours, so the query (and the chart) stays put between renders.
  const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  const start = new Date(end.getTime() - days * 86_400_000);
  const quantities = useApi<MeterQuantities>(
    withQuery(`/v1/meters/${id}/quantities`, {
      start_timestamp: start.toISOString(),
      end_timestamp: end.toISOString(),
      interval,
    }),
  );
  return (
    <Resource loaded={meter} what="Meter">
      {(m) => (
        <>
          <p className="crumbs">
            <Link to="/meters">Meters</Link> /
          </p>
          <PageHeader title={m.name}>
            {/* biome-ignore lint/a11y/useSemanticElements: a fieldset's border and legend do not fit a segmented control; role=group with a label says the same */}
            <div className="segmented" role="group" aria-label="Period">
              {Object.keys(RANGES).map((r) => (
                <button
                  key={r}
                  type="button"
                  className={r === range ? "on" : ""}
                  aria-pressed={r === range}
                  onClick={() => setRange(r)}
                >
                  {r}
                </button>
              ))}
            </div>
          </PageHeader>
          <section className="card stack">
            <Resource loaded={quantities} what="Quantities">
              {(q) => (
                <>
                  <p>
                    <span className="muted">Total</span>{" "}
                    <strong className="big-number">{q.total.toLocaleString()}</strong>
                  </p>
                  {q.total === 0 ? (
                    <p className="muted">
                      No usage in this period. Send an event:{" "}
                      <code>till events ingest --name api_call --customer &lt;id&gt;</code>
                    </p>
                  ) : null}
                  <QuantityChart data={q} interval={interval} />
                </>
              )}
            </Resource>
          </section>
        </>
      )}
    </Resource>
  );
}
