// The delivery log of one webhook endpoint, by event: what was sent (type and payload), every
// attempt with its time, HTTP status and the receiver's response body, and Redeliver, which sends
// the same event again under the same webhook-id (POST /v1/webhooks/events/{id}/redeliver).
import { useEffect, useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import type { WebhookDelivery, WebhookEndpoint } from "../types.ts";
import { Badge, ErrorNote, Resource, useAction, when } from "../ui.tsx";

interface EventLog {
  event: WebhookDelivery["webhook_event"];
  /** Oldest first. */
  attempts: WebhookDelivery[];
}

function byEvent(deliveries: WebhookDelivery[]): EventLog[] {
  const logs = new Map<string, EventLog>();
  for (const d of deliveries) {
    const log = logs.get(d.webhook_event.id) ?? { event: d.webhook_event, attempts: [] };
    log.attempts.push(d);
    logs.set(d.webhook_event.id, log);
  }
  for (const log of logs.values())
    log.attempts.sort((a, b) => a.created_at.localeCompare(b.created_at));
  // Newest event first.
  return [...logs.values()].sort((a, b) => b.event.created_at.localeCompare(a.event.created_at));
}

function pretty(text: string | null): string {
  if (text === null) return "";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Result({ d }: { d: WebhookDelivery }) {
  return (
    <Badge tone={d.succeeded ? "good" : "bad"}>
      {d.http_code === null ? "no answer" : `HTTP ${d.http_code}`}
    </Badge>
  );
}

function EventEntry({ log, onRedeliver }: { log: EventLog; onRedeliver: () => void }) {
  const action = useAction();
  const last = log.attempts.at(-1)!;
  const n = log.attempts.length;
  return (
    <li className="delivery" data-event-id={log.event.id}>
      <details>
        <summary>
          <code>{log.event.type}</code> <Result d={last} />{" "}
          <span className="muted">
            {n} attempt{n === 1 ? "" : "s"} · last {when(last.created_at)}
          </span>
        </summary>
        <div className="stack delivery-body">
          <h4>Request</h4>
          {log.event.payload === null ? (
            <p className="muted">The payload was archived after the retention period.</p>
          ) : (
            <pre className="payload">{pretty(log.event.payload)}</pre>
          )}
          <h4>Attempts</h4>
          <ol className="attempts">
            {log.attempts.map((d) => (
              <li key={d.id}>
                <Result d={d} /> <span className="muted">{when(d.created_at)}</span>
                {d.response ? (
                  <pre className="payload">{pretty(d.response)}</pre>
                ) : (
                  <p className="muted small-text">No response body.</p>
                )}
              </li>
            ))}
          </ol>
        </div>
      </details>
      <button
        type="button"
        className="ghost small"
        disabled={action.busy || log.event.is_archived}
        aria-label={`Redeliver ${log.event.type}`}
        onClick={() =>
          void action.run(async () => {
            await api.post(`/v1/webhooks/events/${log.event.id}/redeliver`);
            onRedeliver();
          })
        }
      >
        Redeliver
      </button>
      <ErrorNote error={action.error} />
    </li>
  );
}

export function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const deliveries = useApi<Page<WebhookDelivery>>(
    withQuery("/v1/webhooks/deliveries", { endpoint_id: endpoint.id, limit: 100 }),
  );
  // A redelivery runs in the worker: look again a few times so its attempt shows up by itself.
  const [polls, setPolls] = useState(0);
  const { reload } = deliveries;
  useEffect(() => {
    if (polls === 0) return;
    const timer = setTimeout(() => {
      reload();
      setPolls((p) => p - 1);
    }, 1000);
    return () => clearTimeout(timer);
  }, [polls, reload]);
  return (
    <section className="stack" aria-label="Deliveries">
      <div className="row spread">
        <h3>Deliveries</h3>
        <button type="button" className="ghost small" onClick={reload}>
          Refresh
        </button>
      </div>
      <Resource loaded={deliveries} what="Deliveries">
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">
              No deliveries yet. Events you subscribed to are sent here as they happen.
            </p>
          ) : (
            <ul className="list deliveries">
              {byEvent(page.items).map((log) => (
                <EventEntry key={log.event.id} log={log} onRedeliver={() => setPolls(5)} />
              ))}
            </ul>
          )
        }
      </Resource>
    </section>
  );
}
