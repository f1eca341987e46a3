// One subscription on the portal page: where it stands (renewing, canceling, pausing, paused);
// cancel at period end with a reason or keep it; and, only when the seller's
// customer_portal_settings.subscription.pause allows it, pause at period end, take a scheduled
// pause back, or resume.
import { useState } from "react";
import { money } from "../checkout/format.ts";
import type { PortalApi, Subscription } from "./api.ts";

const REASONS: [string, string][] = [
  ["too_expensive", "Too expensive"],
  ["missing_features", "Missing features"],
  ["switched_service", "Switched to another service"],
  ["unused", "I don't use it enough"],
  ["customer_service", "Customer service"],
  ["low_quality", "Quality was lacking"],
  ["too_complex", "Too complicated"],
  ["other", "Other"],
];

export const day = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });

/** The seller's customer_portal_settings.subscription.pause: off unless it says so, as Polar. */
function allowsPause(s: Subscription): boolean {
  return s.product.organization.customer_portal_settings?.subscription?.pause === true;
}

/** One line on where the subscription stands: renewing, ending, pausing or paused. */
function statusLine(s: Subscription): string {
  if (s.status === "paused") return s.resumes_at ? `Paused until ${day(s.resumes_at)}` : "Paused";
  if (s.status !== "active") return `Status: ${s.status}`;
  if (s.cancel_at_period_end) return `Cancels on ${day(s.ends_at ?? s.current_period_end)}`;
  if (s.pause_at_period_end)
    return `Pauses on ${day(s.current_period_end)}${s.resumes_at ? `, resumes on ${day(s.resumes_at)}` : ""}`;
  return `Renews on ${day(s.current_period_end)}`;
}

export function SubscriptionCard({
  api,
  subscription: s,
  onChange,
}: {
  api: PortalApi;
  subscription: Subscription;
  onChange: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pausable = allowsPause(s);
  const active = s.status === "active";
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      setAsking(false);
      await onChange();
    } catch (err) {
      setError(err instanceof Error ? err.message : "Something went wrong.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="card" data-subscription={s.id}>
      <div className="row">
        <strong>{s.product.name}</strong>
        <span>
          {money(s.amount, s.currency)} / {s.recurring_interval}
        </span>
      </div>
      <p className="muted status">{statusLine(s)}</p>
      <div className="actions">
        {s.status === "active" && s.cancel_at_period_end ? (
          <button
            type="button"
            className="uncancel"
            disabled={busy}
            onClick={() => void run(() => api.uncancel(s.id))}
          >
            Keep subscription
          </button>
        ) : null}
        {s.status === "active" && !s.cancel_at_period_end && !asking ? (
          <button type="button" className="cancel" onClick={() => setAsking(true)}>
            Cancel subscription
          </button>
        ) : null}
        {/* Pausing and resuming only where the seller allows them: the server refuses otherwise. */}
        {pausable && active && !s.cancel_at_period_end && !s.pause_at_period_end && !asking ? (
          <button
            type="button"
            className="pause"
            disabled={busy}
            onClick={() => void run(() => api.pauseAtPeriodEnd(s.id, true))}
          >
            Pause at period end
          </button>
        ) : null}
        {pausable && active && s.pause_at_period_end ? (
          <button
            type="button"
            className="unpause"
            disabled={busy}
            onClick={() => void run(() => api.pauseAtPeriodEnd(s.id, false))}
          >
            Don't pause
          </button>
        ) : null}
        {pausable && s.status === "paused" ? (
          <button
            type="button"
            className="resume"
            disabled={busy}
            onClick={() => void run(() => api.resume(s.id))}
          >
            Resume subscription
          </button>
        ) : null}
      </div>
      {asking ? (
        <form
          className="cancel-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run(() => api.cancel(s.id, reason, comment));
          }}
        >
          <label htmlFor={`reason-${s.id}`}>Why are you canceling?</label>
          <select
            id={`reason-${s.id}`}
            required
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          >
            <option value="" disabled>
              Choose a reason
            </option>
            {REASONS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          <label htmlFor={`comment-${s.id}`}>Anything else? (optional)</label>
          <textarea
            id={`comment-${s.id}`}
            value={comment}
            maxLength={2000}
            onChange={(e) => setComment(e.target.value)}
          />
          <div className="row">
            <button type="button" onClick={() => setAsking(false)}>
              Back
            </button>
            <button type="submit" className="confirm-cancel" disabled={busy}>
              Cancel at period end
            </button>
          </div>
        </form>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </article>
  );
}
