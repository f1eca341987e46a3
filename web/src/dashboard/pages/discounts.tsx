// Discounts: list and create (percentage or fixed amount, once / forever / for some months).
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Discount } from "../types.ts";
import {
  Badge,
  Empty,
  ErrorNote,
  Field,
  FormActions,
  PageHeader,
  Resource,
  Table,
  money,
  submit,
  useAction,
  when,
} from "../ui.tsx";

function CreateDiscount({ onDone }: { onDone: () => void }) {
  const org = useOrg();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const kind = String(data.get("kind"));
      const value = Number(String(data.get("value")).replace(",", "."));
      const duration = String(data.get("duration"));
      await api.post("/v1/discounts/", {
        organization_id: org.id,
        name: String(data.get("name")),
        code: String(data.get("code") ?? "") || null,
        duration,
        ...(duration === "repeating"
          ? { duration_in_months: Number(data.get("months") || 3) }
          : {}),
        ...(kind === "percentage"
          ? { type: "percentage", basis_points: Math.round(value * 100) }
          : { type: "fixed", amount: Math.round(value * 100), currency: "usd" }),
      });
      onDone();
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="New discount">
      <h2>New discount</h2>
      <div className="row">
        <Field
          label="Name"
          name="name"
          required
          placeholder="Launch week"
          error={action.fieldError("name")}
        />
        <Field label="Code" name="code" placeholder="LAUNCH20" error={action.fieldError("code")} />
      </div>
      <div className="row">
        <label className="field">
          <span>Kind</span>
          <select name="kind" defaultValue="percentage">
            <option value="percentage">Percent off</option>
            <option value="fixed">Amount off (USD)</option>
          </select>
        </label>
        <Field
          label="Value"
          name="value"
          required
          placeholder="20"
          inputMode="decimal"
          error={action.fieldError("basis_points") ?? action.fieldError("amount")}
        />
        <label className="field">
          <span>Duration</span>
          <select name="duration" defaultValue="once">
            <option value="once">Once</option>
            <option value="forever">Forever</option>
            <option value="repeating">Some months</option>
          </select>
        </label>
        <Field
          label="Months"
          name="months"
          type="number"
          min={1}
          placeholder="3"
          error={action.fieldError("duration_in_months")}
        />
      </div>
      <FormActions action={action} label="Create discount" onCancel={onDone} />
    </form>
  );
}

export function DiscountsPage() {
  const org = useOrg();
  const [creating, setCreating] = useState(false);
  const discounts = useApi<Page<Discount>>(
    withQuery("/v1/discounts/", { organization_id: org.id, limit: 100 }),
  );
  const action = useAction();
  return (
    <>
      <PageHeader title="Discounts">
        <button
          type="button"
          className="primary"
          onClick={() => setCreating(true)}
          disabled={creating}
        >
          New discount
        </button>
      </PageHeader>
      {creating ? (
        <CreateDiscount
          onDone={() => {
            setCreating(false);
            return discounts.reload();
          }}
        />
      ) : null}
      <ErrorNote error={action.error} />
      <Resource loaded={discounts} what="Discounts">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No discounts yet"
              command="till discounts create --name 'Launch week' --code LAUNCH20 --percent 20"
            />
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Name", (d) => d.name],
                [
                  "Code",
                  (d) => (d.code ? <code>{d.code}</code> : <span className="muted">—</span>),
                ],
                [
                  "Off",
                  (d) =>
                    d.type === "percentage"
                      ? `${(d.basis_points ?? 0) / 100}%`
                      : money(d.amount, d.currency),
                ],
                ["Duration", (d) => <Badge>{d.duration}</Badge>],
                [
                  "Used",
                  (d) =>
                    `${d.redemptions_count}${d.max_redemptions ? ` / ${d.max_redemptions}` : ""}`,
                ],
                ["Created", (d) => <span className="muted">{when(d.created_at)}</span>],
                [
                  "",
                  (d) => (
                    <button
                      type="button"
                      className="ghost small"
                      onClick={() =>
                        void action.run(async () => {
                          await api.del(`/v1/discounts/${d.id}`);
                          return discounts.reload();
                        })
                      }
                    >
                      Delete
                    </button>
                  ),
                ],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}
