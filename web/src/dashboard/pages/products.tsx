// Products: the catalog list and the form that creates a product with its first price.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import { navigate } from "../router.ts";
import type { Product } from "../types.ts";
import {
  Badge,
  Empty,
  Field,
  FormActions,
  Link,
  PageHeader,
  Resource,
  Table,
  money,
  submit,
  useAction,
  when,
} from "../ui.tsx";

export function priceLabel(p: Product): string {
  const price = p.prices.find((x) => !x.is_archived) ?? p.prices[0];
  if (!price) return "—";
  const amount =
    price.amount_type === "free"
      ? "Free"
      : price.amount_type === "custom"
        ? "Pay what you want"
        : price.amount_type === "metered_unit"
          ? "Metered"
          : price.amount_type === "seat_based"
            ? `${money(price.seat_tiers.tiers[0]?.price_per_seat ?? 0, price.price_currency)} per seat`
            : money(price.price_amount, price.price_currency);
  return p.recurring_interval ? `${amount} / ${p.recurring_interval}` : amount;
}

function CreateProduct({ onDone }: { onDone: () => void }) {
  const org = useOrg();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const interval = String(data.get("interval"));
      const amount = Math.round(Number(String(data.get("price")).replace(",", ".")) * 100);
      if (!Number.isFinite(amount) || amount < 0)
        throw new Error("Enter the price as a number, e.g. 15.00");
      // Said in the currency, before the API's rule comes back in minor units.
      if (amount > 0 && amount < 50)
        throw new Error(
          `A price is either free (0) or at least ${money(50, String(data.get("currency")))}.`,
        );
      const product = await api.post<Product>("/v1/products/", {
        organization_id: org.id,
        name: String(data.get("name")),
        description: String(data.get("description") ?? "") || null,
        recurring_interval: interval === "once" ? null : interval,
        prices: [
          amount === 0
            ? { amount_type: "free" }
            : {
                amount_type: "fixed",
                price_amount: amount,
                price_currency: String(data.get("currency")),
              },
        ],
      });
      onDone();
      navigate(`/products/${product.id}`);
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="New product">
      <h2>New product</h2>
      <Field
        label="Name"
        name="name"
        required
        placeholder="Pro"
        error={action.fieldError("name")}
      />
      <Field
        label="Description"
        name="description"
        placeholder="Optional"
        error={action.fieldError("description")}
      />
      <div className="row">
        <Field
          label="Price"
          name="price"
          required
          placeholder="15.00"
          inputMode="decimal"
          error={action.fieldError("prices.0.price_amount")}
        />
        <label className="field">
          <span>Currency</span>
          <select name="currency" defaultValue="usd">
            <option value="usd">USD</option>
            <option value="eur">EUR</option>
            <option value="gbp">GBP</option>
          </select>
        </label>
        <label className="field">
          <span>Billing</span>
          <select name="interval" defaultValue="month">
            <option value="once">One-time</option>
            <option value="day">Daily</option>
            <option value="week">Weekly</option>
            <option value="month">Monthly</option>
            <option value="year">Yearly</option>
          </select>
        </label>
      </div>
      <FormActions action={action} label="Create product" busyLabel="Creating…" onCancel={onDone} />
    </form>
  );
}

export function ProductsPage() {
  const org = useOrg();
  const [archived, setArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const products = useApi<Page<Product>>(
    withQuery("/v1/products/", {
      organization_id: org.id,
      limit: 100,
      is_archived: archived,
      sorting: "-created_at",
    }),
  );
  return (
    <>
      <PageHeader title="Products">
        <label className="check">
          <input
            type="checkbox"
            checked={archived}
            onChange={(e) => setArchived(e.target.checked)}
          />{" "}
          Archived
        </label>
        <button
          type="button"
          className="primary"
          onClick={() => setCreating(true)}
          disabled={creating}
        >
          New product
        </button>
      </PageHeader>
      {creating ? (
        <CreateProduct
          onDone={() => {
            setCreating(false);
            return products.reload();
          }}
        />
      ) : null}
      <Resource loaded={products} what="Products">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title={archived ? "No archived products" : "No products yet"}
              command="till products create --name Pro --price 1500 --recurring month"
            >
              <p className="muted">Create one here with “New product”, or from your terminal:</p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              label="Products"
              columns={[
                [
                  "Name",
                  (p) => (
                    <>
                      <Link to={`/products/${p.id}`}>{p.name}</Link>
                      {p.is_archived ? <Badge tone="warn">archived</Badge> : null}
                    </>
                  ),
                ],
                ["Price", (p) => priceLabel(p)],
                [
                  "Type",
                  (p) =>
                    p.is_recurring ? (
                      <Badge tone="good">subscription</Badge>
                    ) : (
                      <Badge>one-time</Badge>
                    ),
                ],
                ["Benefits", (p) => p.benefits.length],
                ["Created", (p) => <span className="muted">{when(p.created_at)}</span>],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}
