// Customers: list (searchable), add one, and one customer's state — subscriptions, benefits, meters.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Customer, CustomerState } from "../types.ts";
import {
  Badge,
  Empty,
  ErrorNote,
  Field,
  Link,
  PageHeader,
  Resource,
  Table,
  money,
  submit,
  useAction,
  when,
} from "../ui.tsx";

export function CustomersPage() {
  const org = useOrg();
  const [q, setQ] = useState("");
  const [creating, setCreating] = useState(false);
  const customers = useApi<Page<Customer>>(
    withQuery("/v1/customers/", { organization_id: org.id, limit: 100, query: q }),
  );
  const action = useAction();
  const create = submit((data) =>
    action.run(async () => {
      await api.post("/v1/customers/", {
        organization_id: org.id,
        email: String(data.get("email")),
        name: String(data.get("name") ?? "") || null,
      });
      setCreating(false);
      customers.reload();
    }),
  );
  return (
    <>
      <PageHeader title="Customers">
        <input
          type="search"
          aria-label="Search customers"
          placeholder="Search email or name"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <button
          type="button"
          className="primary"
          onClick={() => setCreating(true)}
          disabled={creating}
        >
          New customer
        </button>
      </PageHeader>
      {creating ? (
        <form className="card row" onSubmit={create} aria-label="New customer">
          <Field
            label="Email"
            name="email"
            type="email"
            required
            error={action.fieldError("email")}
          />
          <Field label="Name" name="name" error={action.fieldError("name")} />
          <button type="submit" className="primary" disabled={action.busy}>
            Add
          </button>
          <button type="button" className="ghost" onClick={() => setCreating(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      <ErrorNote error={action.error} />
      <Resource loaded={customers} what="Customers">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title={q ? "No customer matches" : "No customers yet"}
              command="till customers create --email jane@example.com --name Jane"
            >
              <p className="muted">
                Customers appear here when they buy through a checkout, or add one yourself.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Email", (c) => <Link to={`/customers/${c.id}`}>{c.email}</Link>],
                ["Name", (c) => c.name ?? <span className="muted">—</span>],
                [
                  "External id",
                  (c) =>
                    c.external_id ? <code>{c.external_id}</code> : <span className="muted">—</span>,
                ],
                ["Since", (c) => <span className="muted">{when(c.created_at)}</span>],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}

export function CustomerDetailPage({ id }: { id: string }) {
  const state = useApi<CustomerState>(`/v1/customers/${id}/state`);
  return (
    <Resource loaded={state} what="Customer">
      {(c) => (
        <>
          <p className="crumbs">
            <Link to="/customers">Customers</Link> /
          </p>
          <PageHeader title={c.name ?? c.email} />
          <p className="muted">
            {c.email} · customer since {when(c.created_at)} · <code>{c.id}</code>
          </p>
          <div className="grid three">
            <section className="card stack">
              <h2>Active subscriptions</h2>
              {c.active_subscriptions.length === 0 ? <p className="muted">None.</p> : null}
              <ul className="list">
                {c.active_subscriptions.map((s) => (
                  <li key={s.id}>
                    <Badge tone="good">{s.status}</Badge> {money(s.amount, s.currency)} · renews{" "}
                    {when(s.current_period_end)}
                  </li>
                ))}
              </ul>
            </section>
            <section className="card stack">
              <h2>Benefits</h2>
              {c.granted_benefits.length === 0 ? <p className="muted">None granted.</p> : null}
              <ul className="list">
                {c.granted_benefits.map((b) => (
                  <li key={b.id}>
                    <Badge>{b.benefit_type}</Badge> <code>{b.benefit_id.slice(0, 8)}</code>
                  </li>
                ))}
              </ul>
            </section>
            <section className="card stack">
              <h2>Meters</h2>
              {c.active_meters.length === 0 ? <p className="muted">No metered usage.</p> : null}
              <ul className="list">
                {c.active_meters.map((m) => (
                  <li key={m.id}>
                    <Link to={`/meters/${m.meter_id}`}>{m.meter_id.slice(0, 8)}</Link> used{" "}
                    {m.consumed_units} of {m.credited_units} (balance {m.balance})
                  </li>
                ))}
              </ul>
            </section>
          </div>
        </>
      )}
    </Resource>
  );
}
