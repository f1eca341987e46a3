// One subscription on the portal page: where it stands (renewing, canceling, pausing, paused);
// cancel at period end with a reason or keep it; change the plan where the seller allows it; and,
// only when the seller's customer_portal_settings.subscription.pause allows it, pause at period
// end, take a scheduled pause back, or resume.
import { type Ref, useEffect, useRef, useState } from "react";
import { money, usagePriceLines } from "../checkout/format.ts";
import type { Order, PlanProduct, PortalApi, Pricing, Subscription } from "./api.ts";
import { canChangePlan, ChangePlan, every } from "./change-plan.tsx";
import { day } from "./dates.ts";

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

/** Polar's billable statuses: those a customer may cancel at the period end, or keep again. */
const BILLABLE = new Set(["trialing", "active", "past_due"]);

/** The seller's customer_portal_settings.subscription.pause: off unless it says so, as Polar. */
function allowsPause(s: Subscription): boolean {
  return s.product.organization.customer_portal_settings?.subscription?.pause === true;
}

/**
 * One line on where the subscription stands, in the customer's words: renewing (and what changes
 * then), in its trial, ending, pausing or paused, or behind on a payment and when it is tried again.
 */
export function statusLine(s: Subscription, orders: Order[] = []): string {
  const end = s.ends_at ?? s.current_period_end;
  switch (s.status) {
    case "paused":
      return s.resumes_at ? `Paused until ${day(s.resumes_at)}` : "Paused";
    case "trialing": {
      const until = `Free trial until ${day(s.trial_end ?? s.current_period_end)}`;
      return s.cancel_at_period_end ? `${until}; it ends then` : `${until}; first payment then`;
    }
    case "past_due": {
      const retry = orders.find(
        (o) => o.subscription_id === s.id && o.status === "pending" && o.next_payment_attempt_at,
      )?.next_payment_attempt_at;
      const failed = `A payment failed${retry ? `; it is tried again on ${day(retry)}` : ""}`;
      return s.cancel_at_period_end ? `${failed}. Cancels on ${day(end)}` : failed;
    }
    case "canceled":
      return s.ended_at ? `Ended on ${day(s.ended_at)}` : "Ended";
    case "unpaid":
      return "Ended: a payment was not made";
    case "incomplete":
      return "Waiting for the first payment";
    case "incomplete_expired":
      return "Not started: the first payment was not made";
  }
  if (s.cancel_at_period_end) return `Cancels on ${day(end)}`;
  if (s.pause_at_period_end)
    return `Pauses on ${day(s.current_period_end)}${s.resumes_at ? `, resumes on ${day(s.resumes_at)}` : ""}`;
  const change = s.pending_update;
  // A discount that ends (or one that starts) changes what the renewal charges: it says how much.
  const next = s.pricing?.next_amount;
  const usage = s.prices?.some((p) => p.amount_type === "metered_unit") ? " + usage" : "";
  const renews = `Renews on ${day(s.current_period_end)}${next != null && next !== s.amount ? ` at ${money(next, s.currency)}${usage}` : ""}`;
  if (change?.product_id && change.product_id !== s.product.id)
    return `${renews} on a new plan you chose`;
  if (change?.seats != null) return `${renews} with ${change.seats} seats`;
  return renews;
}

export function SubscriptionCard({
  api,
  subscription: s,
  orders,
  hasCard,
  onChange,
}: {
  api: PortalApi;
  subscription: Subscription;
  /** The customer's orders: a failed renewal's says when it is tried again. */
  orders: Order[];
  /** The customer has a saved payment method. */
  hasCard: boolean;
  /** Reloads the page's data; answers whether the page shows it (else the page says so). */
  onChange: () => Promise<boolean>;
}) {
  const [asking, setAsking] = useState(false);
  const [changing, setChanging] = useState(false);
  const [changed, setChanged] = useState<PlanChange | null>(null);
  const [reason, setReason] = useState("");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pausable = allowsPause(s);
  const active = s.status === "active";
  const billable = BILLABLE.has(s.status) && !s.ended_at;
  const trial = s.status === "trialing";
  const per = every(s.recurring_interval, s.recurring_interval_count);
  const usage = usagePriceLines(s.prices ?? [], s.currency, per);
  // The full price is struck only where a discount, named below it, explains the difference.
  const before = s.pricing?.discount ? s.pricing.amount_before_discount : null;
  const list = before != null && before > s.amount ? before : null;
  // The button pressed goes away with the change: focus moves to the line that says what changed.
  const statusRef = useRef<HTMLParagraphElement>(null);
  // A form closed by its own button takes the focus with it: it goes back to the button that opened
  // the form, or to the notice of the plan change just made.
  const cancelRef = useRef<HTMLButtonElement>(null);
  const changeRef = useRef<HTMLButtonElement>(null);
  const changedRef = useRef<HTMLParagraphElement>(null);
  const [refocus, setRefocus] = useState<"cancel" | "change" | "changed" | null>(null);
  useEffect(() => {
    if (!refocus) return;
    ({ cancel: cancelRef, change: changeRef, changed: changedRef })[refocus].current?.focus();
    setRefocus(null);
  }, [refocus]);
  // Busy buttons are aria-disabled, not disabled: a disabled button drops the focus it was pressed
  // with, and a refusal would leave the buyer at the top of the page.
  const run = async (fn: () => Promise<unknown>) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await fn();
      setAsking(false);
      if (await onChange()) statusRef.current?.focus();
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
        <span className="price">
          {/* What the customer pays: the full price struck beside it while a discount lowers it. */}
          {list !== null ? (
            <>
              <del className="list-price">
                <span className="sr-only">Full price </span>
                {money(list, s.currency)}
              </del>
              <span className="sr-only">, you pay</span>{" "}
            </>
          ) : null}
          {money(s.amount, s.currency)} / {per}
          {usage.length > 0 ? " + usage" : ""}
        </span>
      </div>
      {s.pricing?.discount ? (
        <p className="muted discount">{discountLine(s.pricing.discount, s.currency)}</p>
      ) : null}
      {usage.map((line) => (
        <p key={line} className="muted usage-price">
          {line}
        </p>
      ))}
      <p className="muted status" ref={statusRef} tabIndex={-1}>
        {statusLine(s, orders)}
      </p>
      <div className="actions">
        {billable && s.cancel_at_period_end ? (
          <button
            type="button"
            className="uncancel"
            aria-disabled={busy}
            onClick={() => void run(() => api.uncancel(s.id))}
          >
            Keep subscription
          </button>
        ) : null}
        {canChangePlan(s) && !asking && !changing ? (
          <button
            ref={changeRef}
            type="button"
            className="change-plan-open"
            onClick={() => {
              setChanged(null);
              setChanging(true);
            }}
          >
            Change plan
          </button>
        ) : null}
        {billable && !s.cancel_at_period_end && !s.ends_at && !asking && !changing ? (
          <button ref={cancelRef} type="button" className="cancel" onClick={() => setAsking(true)}>
            Cancel subscription
          </button>
        ) : null}
        {/* Pausing and resuming only where the seller allows them: the server refuses otherwise. */}
        {pausable &&
        active &&
        !s.cancel_at_period_end &&
        !s.pause_at_period_end &&
        !asking &&
        !changing ? (
          <button
            type="button"
            className="pause"
            aria-disabled={busy}
            onClick={() => void run(() => api.pauseAtPeriodEnd(s.id, true))}
          >
            Pause at period end
          </button>
        ) : null}
        {pausable && active && s.pause_at_period_end ? (
          <button
            type="button"
            className="unpause"
            aria-disabled={busy}
            onClick={() => void run(() => api.pauseAtPeriodEnd(s.id, false))}
          >
            Don't pause
          </button>
        ) : null}
        {pausable && s.status === "paused" ? (
          <button
            type="button"
            className="resume"
            aria-disabled={busy}
            onClick={() => void run(() => api.resume(s.id))}
          >
            Resume subscription
          </button>
        ) : null}
      </div>
      {changing ? (
        <ChangePlan
          api={api}
          subscription={s}
          hasCard={hasCard}
          onClose={() => {
            setChanging(false);
            setRefocus("change");
          }}
          onChanged={async (updated, to) => {
            setChanged({ to, updated, before: new Set(orders.map((o) => o.id)) });
            setChanging(false);
            setRefocus("changed");
            await onChange();
          }}
        />
      ) : null}
      {changed ? <PlanChanged ref={changedRef} change={changed} orders={orders} /> : null}
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
            // biome-ignore lint/a11y/noAutofocus: opened by the buyer's own click, to answer at once
            autoFocus
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
            <button
              type="button"
              onClick={() => {
                setAsking(false);
                setRefocus("cancel");
              }}
            >
              Back
            </button>
            <button type="submit" className="confirm-cancel" aria-disabled={busy}>
              {trial ? "Cancel when the trial ends" : "Cancel at period end"}
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

/** "Launch: 25% off every payment", "Welcome: $5.00 off for the first 3 months". */
export function discountLine(d: NonNullable<Pricing["discount"]>, currency: string): string {
  const off =
    d.type === "percentage"
      ? `${((d.basis_points ?? 0) / 100).toLocaleString(undefined, { maximumFractionDigits: 2 })}% off`
      : `${money(d.amount ?? 0, currency)} off`;
  const months = d.duration_in_months ?? 1;
  const lasts =
    d.duration === "forever"
      ? "every payment"
      : d.duration === "once"
        ? "the first payment"
        : months === 1
          ? "for the first month"
          : `for the first ${months} months`;
  return `${d.name}: ${off} ${lasts}`;
}

interface PlanChange {
  to: PlanProduct;
  updated: Subscription;
  /** The orders there were before the change: a new proration order is the one not among them. */
  before: Set<string>;
}

/** What the change did: the plan now (or from the renewal), and the proration order it made. */
function PlanChanged({
  ref,
  change,
  orders,
}: {
  ref: Ref<HTMLParagraphElement>;
  change: PlanChange;
  orders: Order[];
}) {
  const { to, updated } = change;
  const pending = updated.pending_update;
  const proration = orders.find(
    (o) =>
      o.subscription_id === updated.id &&
      o.billing_reason === "subscription_update" &&
      !change.before.has(o.id),
  );
  const settled = !proration
    ? ""
    : proration.total_amount > 0
      ? ` ${money(proration.total_amount, proration.currency)} was charged for the rest of this period (order ${proration.invoice_number ?? proration.id}).`
      : proration.total_amount < 0
        ? ` ${money(-proration.total_amount, proration.currency)} was credited to your balance (order ${proration.invoice_number ?? proration.id}).`
        : "";
  return (
    <p role="status" className="notice plan-changed" ref={ref} tabIndex={-1}>
      {pending?.product_id === to.id
        ? `Your plan changes to ${to.name} on ${day(pending.applies_at)}.`
        : `You're now on ${to.name}.${settled}`}
    </p>
  );
}
