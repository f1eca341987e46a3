// Organization access tokens for the API, CI and Polar's SDK. The token is shown once, at creation.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { AccessToken } from "../types.ts";
import {
  Badge,
  CopyButton,
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

const RESOURCES = [
  "products",
  "benefits",
  "discounts",
  "checkouts",
  "checkout_links",
  "orders",
  "subscriptions",
  "customers",
  "customer_sessions",
  "events",
  "meters",
  "refunds",
  "license_keys",
  "webhooks",
  "files",
  "custom_fields",
];

function scopesFor(resources: string[], write: boolean): string[] {
  // customer_sessions has only a write scope in Polar's list.
  return resources.map((r) => (write || r === "customer_sessions" ? `${r}:write` : `${r}:read`));
}

function CreateToken({
  onCreated,
  onCancel,
}: {
  onCreated: (token: string) => void;
  onCancel: () => void;
}) {
  const org = useOrg();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const resources = data.getAll("resources").map(String);
      if (resources.length === 0) throw new Error("Choose at least one resource.");
      const expires = String(data.get("expires"));
      const res = await api.post<{ token: string }>("/v1/organization-access-tokens/", {
        organization_id: org.id,
        comment: String(data.get("comment")),
        scopes: scopesFor(resources, data.get("access") === "write"),
        expires_in: expires === "never" ? null : expires,
      });
      onCreated(res.token);
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="New access token">
      <h2>New access token</h2>
      <div className="row">
        <Field
          label="Name"
          name="comment"
          required
          placeholder="CI deploys"
          error={action.fieldError("comment")}
        />
        <label className="field">
          <span>Access</span>
          <select name="access" defaultValue="write">
            <option value="write">Read and write</option>
            <option value="read">Read only</option>
          </select>
        </label>
        <label className="field">
          <span>Expires</span>
          <select name="expires" defaultValue="P90D">
            <option value="P30D">in 30 days</option>
            <option value="P90D">in 90 days</option>
            <option value="P365D">in a year</option>
            <option value="never">never</option>
          </select>
        </label>
      </div>
      <fieldset className="events">
        <legend>Resources</legend>
        {RESOURCES.map((r) => (
          <label key={r} className="check">
            <input type="checkbox" name="resources" value={r} defaultChecked />{" "}
            {r.replace(/_/g, " ")}
          </label>
        ))}
      </fieldset>
      <FormActions action={action} label="Create token" onCancel={onCancel} />
    </form>
  );
}

export function TokensPage() {
  const org = useOrg();
  const [creating, setCreating] = useState(false);
  const [fresh, setFresh] = useState<string | null>(null);
  const tokens = useApi<Page<AccessToken>>(
    withQuery("/v1/organization-access-tokens/", { organization_id: org.id, limit: 100 }),
  );
  const action = useAction();
  return (
    <>
      <PageHeader title="Access tokens">
        <button
          type="button"
          className="primary"
          onClick={() => {
            setCreating(true);
            setFresh(null);
          }}
          disabled={creating}
        >
          New token
        </button>
      </PageHeader>
      {fresh ? (
        <section className="card stack highlight" role="status">
          <h2>Your new token</h2>
          <p>
            Copy it now: it is shown only once. Use it as <code>Authorization: Bearer …</code> or{" "}
            <code>TILL_TOKEN</code> in CI.
          </p>
          <div className="command">
            <code className="token">{fresh}</code>
            <CopyButton text={fresh} label="Copy token" />
          </div>
          <button type="button" className="ghost small" onClick={() => setFresh(null)}>
            I have stored it
          </button>
        </section>
      ) : null}
      {creating ? (
        <CreateToken
          onCancel={() => setCreating(false)}
          onCreated={(t) => {
            setFresh(t);
            setCreating(false);
            return tokens.reload();
          }}
        />
      ) : null}
      <ErrorNote error={action.error} />
      <Resource loaded={tokens} what="Access tokens">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No access tokens"
              command="till tokens create --comment ci --scope products:write"
            >
              <p className="muted">
                Tokens let scripts, CI and Polar's SDK call the API for this organization.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Name", (t) => t.comment],
                [
                  "Scopes",
                  (t) => <span className="muted small-text">{t.scopes.length} scopes</span>,
                ],
                [
                  "Last used",
                  (t) => (
                    <span className="muted">{t.last_used_at ? when(t.last_used_at) : "never"}</span>
                  ),
                ],
                [
                  "Expires",
                  (t) => (t.expires_at ? when(t.expires_at) : <Badge tone="warn">never</Badge>),
                ],
                [
                  "",
                  (t) => (
                    <button
                      type="button"
                      className="ghost small danger"
                      onClick={() =>
                        window.confirm(`Revoke “${t.comment}”? Anything using it stops working.`) &&
                        void action.run(async () => {
                          await api.del(`/v1/organization-access-tokens/${t.id}`);
                          return tokens.reload();
                        })
                      }
                    >
                      Revoke
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
