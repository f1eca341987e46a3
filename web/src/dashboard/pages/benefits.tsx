// Benefits: every type a seller can grant (custom, Discord, GitHub, downloads, license keys, meter
// credits) listed, created, edited and deleted through /v1/benefits/. The type is fixed once
// created, as on the API; products attach benefits on their own page.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import { BENEFIT_TYPES, type Benefit, type BenefitType } from "../types.ts";
import {
  Badge,
  Empty,
  ErrorNote,
  Field,
  FormActions,
  PageHeader,
  Resource,
  Table,
  submit,
  useAction,
  when,
} from "../ui.tsx";
import { PropertiesFields, propertiesFrom, TYPE_LABELS } from "./benefit-properties.tsx";

/** One line about what the benefit grants, for the list. */
function summary(b: Benefit): string {
  const p = b.properties;
  switch (b.type) {
    case "custom":
      return typeof p.note === "string" ? p.note : "";
    case "discord":
      return `Role ${String(p.role_id)}`;
    case "github_repository":
      return `${String(p.repository_owner)}/${String(p.repository_name)} (${String(p.permission)})`;
    case "downloadables": {
      const n = (p.files as unknown[] | undefined)?.length ?? 0;
      return `${n} file${n === 1 ? "" : "s"}`;
    }
    case "license_keys":
      return p.prefix ? `Keys start with ${String(p.prefix)}` : "License keys";
    case "meter_credit":
      return `${String(p.units)} units${p.rollover ? ", rolled over" : ""}`;
  }
}

function BenefitForm({ existing, onDone }: { existing: Benefit | null; onDone: () => void }) {
  const org = useOrg();
  const action = useAction();
  const [type, setType] = useState<BenefitType>(existing?.type ?? "custom");
  const onSubmit = submit((data) =>
    action.run(async () => {
      const body = {
        type,
        description: String(data.get("description") ?? "").trim(),
        properties: propertiesFrom(type, data, existing?.properties),
      };
      if (existing) await api.patch(`/v1/benefits/${existing.id}`, body);
      else await api.post("/v1/benefits/", { ...body, organization_id: org.id });
      onDone();
    }),
  );
  const title = existing ? `Edit ${existing.description}` : "New benefit";
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label={title}>
      <h2>{title}</h2>
      <div className="row">
        {existing ? (
          <p>
            <Badge>{TYPE_LABELS[existing.type]}</Badge>
          </p>
        ) : (
          <label className="field">
            <span>Type</span>
            <select
              name="type"
              value={type}
              onChange={(e) => setType(e.target.value as BenefitType)}
            >
              {BENEFIT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPE_LABELS[t]}
                </option>
              ))}
            </select>
          </label>
        )}
        <Field
          label="Description"
          name="description"
          required
          placeholder="Priority support"
          defaultValue={existing?.description}
          error={action.fieldError("description")}
        />
      </div>
      {/* key: switching type starts its fields afresh */}
      <PropertiesFields
        key={type}
        type={type}
        current={existing?.properties ?? {}}
        fieldError={action.fieldError}
      />
      <FormActions
        action={action}
        label={existing ? "Save benefit" : "Create benefit"}
        busyLabel="Saving…"
        onCancel={onDone}
      />
    </form>
  );
}

export function BenefitsPage() {
  const org = useOrg();
  const [editing, setEditing] = useState<Benefit | "new" | null>(null);
  const [type, setType] = useState("");
  const benefits = useApi<Page<Benefit>>(
    withQuery("/v1/benefits/", { organization_id: org.id, limit: 100, type }),
  );
  const action = useAction();
  const done = () => {
    setEditing(null);
    benefits.reload();
  };
  const remove = (b: Benefit) => {
    if (!window.confirm(`Delete “${b.description}”? Customers who have it lose it.`)) return;
    void action.run(async () => {
      await api.del(`/v1/benefits/${b.id}`);
      benefits.reload();
    });
  };
  return (
    <>
      <PageHeader title="Benefits">
        <label className="check">
          Show{" "}
          <select value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">All types</option>
            {BENEFIT_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="primary"
          onClick={() => setEditing("new")}
          disabled={editing !== null}
        >
          New benefit
        </button>
      </PageHeader>
      {editing ? (
        <BenefitForm
          key={editing === "new" ? "new" : editing.id}
          existing={editing === "new" ? null : editing}
          onDone={done}
        />
      ) : null}
      <ErrorNote error={action.error} />
      <Resource loaded={benefits} what="Benefits">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={type ? "No benefits of this type" : "No benefits yet"}>
              <p className="muted">
                Benefits are what customers get when they buy: a Discord role, repository access,
                files, license keys, meter credits or anything you describe. Create one with “New
                benefit”, then attach it to a product.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              label="Benefits"
              columns={[
                ["Description", (b) => b.description],
                ["Type", (b) => <Badge>{TYPE_LABELS[b.type]}</Badge>],
                ["Grants", (b) => <span className="muted">{summary(b)}</span>],
                ["Created", (b) => <span className="muted">{when(b.created_at)}</span>],
                [
                  "Actions",
                  (b) => (
                    <div className="actions">
                      <button
                        type="button"
                        className="ghost small"
                        onClick={() => setEditing(b)}
                        aria-label={`Edit ${b.description}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="ghost small danger"
                        onClick={() => remove(b)}
                        disabled={action.busy}
                        aria-label={`Delete ${b.description}`}
                      >
                        Delete
                      </button>
                    </div>
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
