// The properties of each benefit type as form fields, and the FormData → properties body that
// POST/PATCH /v1/benefits/ accept (server/modules/benefits/properties.ts). Discord and GitHub have
// no connect flow here: the seller pastes the Discord server token the bot install hands back and
// names the repository.
import { useState } from "react";
import { useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import { uploadDownloadable } from "../files.ts";
import type { BenefitType, FileRead, Meter } from "../types.ts";
import {
  ErrorNote,
  Field,
  FieldError,
  FieldShell,
  Resource,
  SelectField,
  useAction,
} from "../ui.tsx";

export const TYPE_LABELS: Record<BenefitType, string> = {
  custom: "Custom",
  discord: "Discord role",
  github_repository: "GitHub repository access",
  downloadables: "File downloads",
  license_keys: "License keys",
  meter_credit: "Meter credits",
};

type Props = Record<string, unknown>;
type FieldErrorOf = (path: string) => string | undefined;

const text = (data: FormData, name: string) => String(data.get(name) ?? "").trim();
const optionalInt = (data: FormData, name: string) => {
  const v = text(data, name);
  return v === "" ? null : Number(v);
};
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");
const sub = (p: Props, key: string) => (p[key] ?? {}) as Props;

/** The properties body for a type from the form's fields; `current` keeps what the form does not show. */
export function propertiesFrom(type: BenefitType, data: FormData, current: Props = {}): Props {
  switch (type) {
    case "custom":
      return { note: text(data, "note") || null };
    case "discord":
      return {
        guild_token: text(data, "guild_token"),
        role_id: text(data, "role_id"),
        kick_member: data.get("kick_member") === "on",
      };
    case "github_repository":
      return {
        repository_owner: text(data, "repository_owner"),
        repository_name: text(data, "repository_name"),
        permission: text(data, "permission"),
      };
    case "downloadables": {
      const files = data.getAll("files").map(String);
      // Files the seller archived stay archived while they remain in the benefit.
      const archived = Object.fromEntries(
        Object.entries((current.archived ?? {}) as Record<string, boolean>).filter(([id]) =>
          files.includes(id),
        ),
      );
      return { files, archived };
    }
    case "license_keys": {
      const ttl = optionalInt(data, "ttl");
      const limit = optionalInt(data, "limit");
      return {
        prefix: text(data, "prefix") || null,
        expires: ttl === null ? null : { ttl, timeframe: text(data, "timeframe") },
        activations:
          limit === null
            ? null
            : { limit, enable_customer_admin: data.get("enable_customer_admin") === "on" },
        limit_usage: optionalInt(data, "limit_usage"),
      };
    }
    case "meter_credit":
      return {
        meter_id: text(data, "meter_id"),
        units: optionalInt(data, "units"),
        rollover: data.get("rollover") === "on",
      };
  }
}

function Check({
  name,
  label,
  checked,
  value,
}: {
  name: string;
  label: string;
  checked: boolean;
  value?: string;
}) {
  return (
    <label className="check">
      <input type="checkbox" name={name} value={value} defaultChecked={checked} /> {label}
    </label>
  );
}

function Downloadables({ chosen, error }: { chosen: string[]; error: string | undefined }) {
  const org = useOrg();
  const files = useApi<Page<FileRead>>(
    withQuery("/v1/files/", { organization_id: org.id, limit: 100 }),
  );
  const [added, setAdded] = useState<FileRead[]>([]);
  const upload = useAction();
  return (
    <fieldset className="stack">
      <legend>Files</legend>
      <Resource loaded={files} what="Files">
        {(page) => {
          const listed = [
            ...added,
            ...page.items.filter(
              (f) =>
                f.service === "downloadable" && f.is_uploaded && !added.some((a) => a.id === f.id),
            ),
          ];
          return listed.length === 0 ? (
            <p className="muted">No files yet. Upload one below.</p>
          ) : (
            listed.map((f) => (
              <Check
                key={f.id}
                name="files"
                value={f.id}
                label={`${f.name} (${f.size_readable})`}
                checked={chosen.includes(f.id) || added.includes(f)}
              />
            ))
          );
        }}
      </Resource>
      <FieldError id="f-files-error" message={error} />
      <label className="field">
        <span>Upload a file</span>
        <input
          type="file"
          name="upload"
          disabled={upload.busy}
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            void upload.run(async () => {
              const uploaded = await uploadDownloadable(org.id, file);
              setAdded((a) => [uploaded, ...a]);
              e.target.value = "";
            });
          }}
        />
      </label>
      {upload.busy ? <p className="muted">Uploading…</p> : null}
      <ErrorNote error={upload.error} />
    </fieldset>
  );
}

function MeterPicker({ value, error }: { value: string; error: string | undefined }) {
  const org = useOrg();
  const meters = useApi<Page<Meter>>(
    withQuery("/v1/meters/", { organization_id: org.id, limit: 100, is_archived: false }),
  );
  return (
    <Resource loaded={meters} what="Meters">
      {(page) =>
        page.items.length === 0 ? (
          <p className="muted">Create a meter first (Meters), then credit units of it here.</p>
        ) : (
          <SelectField
            label="Meter"
            name="meter_id"
            defaultValue={value || page.items[0]!.id}
            options={page.items.map((m) => [m.id, m.name])}
            error={error}
          />
        )
      }
    </Resource>
  );
}

/** The fields of one type, filled from `current` when editing. */
export function PropertiesFields({
  type,
  current,
  fieldError,
}: {
  type: BenefitType;
  current: Props;
  fieldError: FieldErrorOf;
}) {
  const e = (name: string) => fieldError(`properties.${name}`);
  switch (type) {
    case "custom":
      return (
        <FieldShell label="Note for the customer" id="f-note" error={e("note")}>
          <textarea id="f-note" name="note" rows={3} defaultValue={str(current.note)} />
        </FieldShell>
      );
    case "discord":
      return (
        <>
          <p className="muted">
            Install the till bot on your Discord server, then paste the server token it gives you.
          </p>
          <div className="row">
            <Field
              label="Discord server token"
              name="guild_token"
              required
              defaultValue={str(current.guild_token)}
              error={e("guild_token")}
            />
            <Field
              label="Role ID"
              name="role_id"
              required
              inputMode="numeric"
              defaultValue={str(current.role_id)}
              error={e("role_id")}
            />
          </div>
          <Check
            name="kick_member"
            label="Remove the member from the server when the benefit is revoked"
            checked={current.kick_member === true}
          />
        </>
      );
    case "github_repository":
      return (
        <div className="row">
          <Field
            label="Repository owner"
            name="repository_owner"
            required
            placeholder="acme"
            defaultValue={str(current.repository_owner)}
            error={e("repository_owner")}
          />
          <Field
            label="Repository name"
            name="repository_name"
            required
            placeholder="sdk"
            defaultValue={str(current.repository_name)}
            error={e("repository_name")}
          />
          <SelectField
            label="Permission"
            name="permission"
            defaultValue={str(current.permission) || "pull"}
            options={[
              ["pull", "Read"],
              ["triage", "Triage"],
              ["push", "Write"],
              ["maintain", "Maintain"],
              ["admin", "Admin"],
            ]}
            error={e("permission")}
          />
        </div>
      );
    case "downloadables":
      return (
        <Downloadables chosen={(current.files as string[] | undefined) ?? []} error={e("files")} />
      );
    case "license_keys":
      return (
        <>
          <div className="row">
            <Field
              label="Key prefix"
              name="prefix"
              placeholder="ACME"
              defaultValue={str(current.prefix)}
              error={e("prefix")}
            />
            <Field
              label="Usage limit"
              name="limit_usage"
              type="number"
              min={1}
              placeholder="Unlimited"
              defaultValue={str(current.limit_usage)}
              error={e("limit_usage")}
            />
          </div>
          <div className="row">
            <Field
              label="Expires after"
              name="ttl"
              type="number"
              min={1}
              placeholder="Never"
              defaultValue={str(sub(current, "expires").ttl)}
              error={e("expires.ttl")}
            />
            <SelectField
              label="Expiry unit"
              name="timeframe"
              defaultValue={str(sub(current, "expires").timeframe) || "year"}
              options={[
                ["day", "Days"],
                ["month", "Months"],
                ["year", "Years"],
              ]}
              error={e("expires.timeframe")}
            />
            <Field
              label="Activation limit"
              name="limit"
              type="number"
              min={1}
              placeholder="No activations"
              defaultValue={str(sub(current, "activations").limit)}
              error={e("activations.limit")}
            />
          </div>
          <Check
            name="enable_customer_admin"
            label="Customers may deactivate their own activations"
            checked={sub(current, "activations").enable_customer_admin === true}
          />
        </>
      );
    case "meter_credit":
      return (
        <>
          <div className="row">
            <MeterPicker value={str(current.meter_id)} error={e("meter_id")} />
            <Field
              label="Units"
              name="units"
              type="number"
              min={1}
              required
              defaultValue={str(current.units)}
              error={e("units")}
            />
          </div>
          <Check
            name="rollover"
            label="Roll unused units over to the next period"
            checked={current.rollover === true}
          />
        </>
      );
  }
}
