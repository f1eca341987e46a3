// Webhook endpoints (create, reveal and reset the signing secret, delete) and the deliveries log
// (webhook-deliveries.tsx). Built on Polar's v1 webhook API; a server without it answers 404.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { WebhookEndpoint } from "../types.ts";
import { Deliveries } from "./webhook-deliveries.tsx";
import {
  Badge,
  CopyButton,
  Empty,
  ErrorNote,
  Field,
  FormActions,
  PageHeader,
  Resource,
  submit,
  useAction,
} from "../ui.tsx";

const EVENTS = [
  "checkout.created",
  "checkout.updated",
  "order.created",
  "order.paid",
  "order.refunded",
  "subscription.created",
  "subscription.updated",
  "subscription.active",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.revoked",
  "customer.created",
  "customer.updated",
  "customer.state_changed",
  "product.created",
  "product.updated",
  "benefit_grant.created",
  "benefit_grant.revoked",
  "refund.created",
];

function CreateEndpoint({ onDone }: { onDone: () => void }) {
  const org = useOrg();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const events = data.getAll("events").map(String);
      if (events.length === 0) throw new Error("Choose at least one event.");
      await api.post("/v1/webhooks/endpoints", {
        organization_id: org.id,
        url: String(data.get("url")),
        name: String(data.get("name") ?? "") || null,
        format: "raw",
        events,
      });
      onDone();
    }),
  );
  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="New webhook endpoint">
      <h2>New endpoint</h2>
      <div className="row">
        <Field
          label="URL"
          name="url"
          type="url"
          required
          error={action.fieldError("url")}
          placeholder="https://example.com/webhooks/till"
        />
        <Field
          label="Name"
          name="name"
          placeholder="Production"
          error={action.fieldError("name")}
        />
      </div>
      <fieldset className="events">
        <legend>Events</legend>
        {EVENTS.map((e) => (
          <label key={e} className="check">
            <input
              type="checkbox"
              name="events"
              value={e}
              defaultChecked={e.startsWith("order.") || e.startsWith("subscription.")}
            />{" "}
            {e}
          </label>
        ))}
      </fieldset>
      <FormActions action={action} label="Add endpoint" onCancel={onDone} />
    </form>
  );
}

function Secret({ endpoint, onChange }: { endpoint: WebhookEndpoint; onChange: () => void }) {
  const [shown, setShown] = useState(false);
  const action = useAction();
  const reset = () => {
    if (!window.confirm("Reset the signing secret? Your server must use the new one from now on."))
      return;
    void action.run(async () => {
      await api.patch(`/v1/webhooks/endpoints/${endpoint.id}/secret`, {});
      setShown(true);
      return onChange();
    });
  };
  return (
    <div className="secret">
      <code>{shown ? endpoint.secret : "•".repeat(24)}</code>
      <button type="button" className="ghost small" onClick={() => setShown(!shown)}>
        {shown ? "Hide" : "Reveal"}
      </button>
      <CopyButton text={endpoint.secret} label="Copy signing secret" />
      <button type="button" className="ghost small" onClick={reset} disabled={action.busy}>
        Reset
      </button>
      <ErrorNote error={action.error} />
    </div>
  );
}

export function WebhooksPage() {
  const org = useOrg();
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const endpoints = useApi<Page<WebhookEndpoint>>(
    withQuery("/v1/webhooks/endpoints", { organization_id: org.id, limit: 100 }),
  );
  const action = useAction();
  const unavailable = endpoints.error?.status === 404;
  return (
    <>
      <PageHeader title="Webhooks">
        {unavailable ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => setCreating(true)}
            disabled={creating}
          >
            New endpoint
          </button>
        )}
      </PageHeader>
      {creating ? (
        <CreateEndpoint
          onDone={() => {
            setCreating(false);
            return endpoints.reload();
          }}
        />
      ) : null}
      <ErrorNote error={action.error} />
      <Resource loaded={endpoints} what="Webhooks">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No webhook endpoints yet"
              command="till listen --forward-to http://localhost:3000/webhooks"
            >
              <p className="muted">
                Add an endpoint to receive events signed with Standard Webhooks, or forward them to
                your laptop while you develop:
              </p>
            </Empty>
          ) : (
            page.items.map((e) => (
              <section key={e.id} className="card stack">
                <div className="row spread">
                  <div>
                    <h2>{e.name ?? e.url}</h2>
                    <p className="muted mono-link">{e.url}</p>
                  </div>
                  <div className="actions">
                    <Badge tone={e.enabled ? "good" : "warn"}>
                      {e.enabled ? "enabled" : "disabled"}
                    </Badge>
                    <button
                      type="button"
                      className="ghost small"
                      onClick={() => setOpen(open === e.id ? null : e.id)}
                      aria-expanded={open === e.id}
                    >
                      Deliveries
                    </button>
                    <button
                      type="button"
                      className="ghost small danger"
                      onClick={() =>
                        void action.run(async () => {
                          await api.del(`/v1/webhooks/endpoints/${e.id}`);
                          return endpoints.reload();
                        })
                      }
                    >
                      Delete
                    </button>
                  </div>
                </div>
                <Secret endpoint={e} onChange={endpoints.reload} />
                <p className="muted small-text">{e.events.join(", ")}</p>
                {open === e.id ? <Deliveries endpoint={e} /> : null}
              </section>
            ))
          )
        }
      </Resource>
    </>
  );
}
