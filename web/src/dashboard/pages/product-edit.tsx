// Editing a product: name, description and prices, through PATCH /v1/products/{id}. Amounts are
// typed in the currency's major units (dollars) and sent in minor units (cents). A price the seller
// left as it was is sent as {id} so it is kept; a changed one goes as a new price and the server
// archives the old row, so past orders keep pointing at what was paid.
import { useState } from "react";
import { api, ApiError } from "../api.ts";
import { toMajorText, toMinorUnits } from "../format.ts";
import type { Price, Product } from "../types.ts";
import { Field, FieldError, FieldShell, FormActions, submit, useAction } from "../ui.tsx";

const CURRENCIES = ["usd", "eur", "gbp"];

interface Row {
  key: number;
  original: Price | null;
  amountType: Price["amount_type"];
  amount: string;
  currency: string;
}

const rowOf = (p: Price, key: number): Row => ({
  key,
  original: p,
  amountType: p.amount_type,
  amount: p.amount_type === "fixed" ? toMajorText(p.price_amount ?? 0, p.price_currency) : "",
  currency: p.price_currency,
});

const unchanged = (r: Row) =>
  r.original !== null &&
  r.amountType === r.original.amount_type &&
  r.currency === r.original.price_currency &&
  (r.original.amount_type !== "fixed" ||
    toMinorUnits(r.amount, r.currency) === r.original.price_amount);

/** The PATCH body's prices: kept ones by id, the rest as new prices. */
function pricesOf(rows: Row[]): unknown[] {
  const problems = rows.flatMap((r, i) =>
    r.amountType === "fixed" && toMinorUnits(r.amount, r.currency) === null
      ? [{ path: `prices.${i}.price_amount`, message: "Enter the price as a number, e.g. 15.00." }]
      : [],
  );
  if (problems.length > 0) throw new ApiError(0, problems[0]!.message, problems);
  return rows.map((r) =>
    unchanged(r)
      ? { id: r.original!.id }
      : r.amountType === "fixed"
        ? {
            amount_type: "fixed",
            price_amount: toMinorUnits(r.amount, r.currency),
            price_currency: r.currency,
          }
        : { amount_type: "free", price_currency: r.currency },
  );
}

export function EditProduct({ product, onDone }: { product: Product; onDone: () => void }) {
  const action = useAction();
  const [rows, setRows] = useState<Row[]>(() =>
    product.prices.filter((p) => !p.is_archived).map(rowOf),
  );
  const [next, setNext] = useState(1000);
  const change = (key: number, patch: Partial<Row>) =>
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const onSubmit = submit((data) =>
    action.run(async () => {
      await api.patch(`/v1/products/${product.id}`, {
        name: String(data.get("name")).trim(),
        description: String(data.get("description") ?? "").trim() || null,
        prices: pricesOf(rows),
      });
      onDone();
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="Edit product">
      <h2>Edit product</h2>
      <Field
        label="Name"
        name="name"
        required
        defaultValue={product.name}
        error={action.fieldError("name")}
      />
      <FieldShell label="Description" id="f-description" error={action.fieldError("description")}>
        <textarea
          id="f-description"
          name="description"
          rows={3}
          defaultValue={product.description ?? ""}
        />
      </FieldShell>
      <fieldset className="stack">
        <legend>
          Prices{product.recurring_interval ? ` (per ${product.recurring_interval})` : ""}
        </legend>
        {rows.map((r, i) => {
          const n = i === 0 ? "" : ` ${i + 1}`;
          const editable = r.amountType === "fixed" || r.amountType === "free";
          const rowError = action.fieldError(`prices.${i}`);
          const amountError = action.fieldError(`prices.${i}.price_amount`);
          return (
            <div key={r.key} className="row price-row">
              {editable ? (
                <>
                  <label className="field">
                    <span>Kind{n}</span>
                    <select
                      value={r.amountType}
                      onChange={(e) =>
                        change(r.key, { amountType: e.target.value as Row["amountType"] })
                      }
                    >
                      <option value="fixed">Fixed price</option>
                      <option value="free">Free</option>
                    </select>
                  </label>
                  {r.amountType === "fixed" ? (
                    <FieldShell label={`Price${n}`} id={`price-${i}`} error={amountError}>
                      <input
                        id={`price-${i}`}
                        name={`price-${i}`}
                        inputMode="decimal"
                        required
                        placeholder="15.00"
                        value={r.amount}
                        onChange={(e) => change(r.key, { amount: e.target.value })}
                        aria-invalid={amountError ? true : undefined}
                        aria-describedby={amountError ? `price-${i}-error` : undefined}
                      />
                    </FieldShell>
                  ) : null}
                  <label className="field">
                    <span>Currency{n}</span>
                    <select
                      value={r.currency}
                      onChange={(e) => change(r.key, { currency: e.target.value })}
                    >
                      {[...new Set([...CURRENCIES, r.currency])].map((c) => (
                        <option key={c} value={c}>
                          {c.toUpperCase()}
                        </option>
                      ))}
                    </select>
                  </label>
                </>
              ) : (
                <p>{r.amountType.replace("_", " ")} price (kept as it is) </p>
              )}
              <button
                type="button"
                className="ghost small"
                onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                aria-label={`Remove price${n}`}
              >
                Remove
              </button>
              <FieldError id={`price-row-${i}-error`} message={rowError} />
            </div>
          );
        })}
        <div>
          <button
            type="button"
            className="secondary small"
            onClick={() => {
              setRows((rs) => [
                ...rs,
                { key: next, original: null, amountType: "fixed", amount: "", currency: "usd" },
              ]);
              setNext(next + 1);
            }}
          >
            Add price
          </button>
        </div>
        <FieldError id="prices-error" message={action.fieldError("prices")} />
      </fieldset>
      <FormActions action={action} label="Save product" busyLabel="Saving…" onCancel={onDone} />
    </form>
  );
}
