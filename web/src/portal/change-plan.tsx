// Changing a subscription's plan from the portal, as Polar's portal offers it: the seller's other
// public recurring products with their prices, a confirmation that says how the organization's
// proration setting settles the difference, then the change. A refusal (a declined card for an
// `invoice` proration) is said in place and the choice is kept to try again.
import { useEffect, useRef, useState } from "react";
import { money } from "../checkout/format.ts";
import {
  type PlanProduct,
  type PortalApi,
  PortalApiError,
  type Price,
  type ProrationBehavior,
  type Subscription,
} from "./api.ts";
import { day } from "./dates.ts";

/** "month", "3 months": a product's billing interval in words. */
export function every(interval: string | null, count: number | null | undefined): string {
  if (!interval) return "";
  return count && count > 1 ? `${count} ${interval}s` : interval;
}

function priceLabel(p: Price, currency: string, per: string): string {
  switch (p.amount_type) {
    case "fixed":
      return `${money(p.price_amount ?? 0, currency)} / ${per}`;
    case "free":
      return "Free";
    case "custom":
      return "Pay what you want";
    case "seat_based":
      return `Per seat / ${per}`;
    default:
      return "Usage-based";
  }
}

/** The plan's prices in the subscription's currency, e.g. "$30.00 / month + Usage-based". */
export function planPrice(product: PlanProduct, currency: string): string {
  const per = every(product.recurring_interval, product.recurring_interval_count);
  const prices = product.prices.filter(
    (p) => !p.is_archived && (p.price_currency ?? currency) === currency,
  );
  return prices.length ? prices.map((p) => priceLabel(p, currency, per)).join(" + ") : "";
}

/** How the seller's proration setting settles a change made now, in the buyer's words. */
function settlement(behavior: ProrationBehavior | undefined, s: Subscription): string {
  if (s.status === "trialing") return "Your trial's terms follow the new plan.";
  switch (behavior) {
    case "invoice":
      return "The difference for the rest of this period is settled now: charged to your saved card, or credited to your balance if the new plan costs less.";
    case "next_period":
      return `The new plan starts at your next renewal, on ${day(s.current_period_end)}.`;
    case "reset":
      return "The new plan starts today with a new billing period, charged now.";
    default:
      return "The difference for the rest of this period is added to your next invoice.";
  }
}

/** The seller lets customers change plans (Polar's update_plan) and the subscription runs on. */
export function canChangePlan(s: Subscription): boolean {
  return (
    s.product.organization.customer_portal_settings?.subscription?.update_plan !== false &&
    Boolean(s.product.organization.slug) &&
    ["active", "trialing"].includes(s.status) &&
    !s.cancel_at_period_end &&
    !s.ends_at &&
    !s.ended_at
  );
}

export function ChangePlan({
  api,
  subscription: s,
  hasCard,
  onChanged,
  onClose,
}: {
  api: PortalApi;
  subscription: Subscription;
  /** A saved payment method: as Polar's portal, a paid plan is offered only with one. */
  hasCard: boolean;
  onChanged: (updated: Subscription, to: PlanProduct) => Promise<void>;
  onClose: () => void;
}) {
  const [plans, setPlans] = useState<PlanProduct[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmRef = useRef<HTMLHeadingElement>(null);
  const slug = s.product.organization.slug ?? "";

  useEffect(() => {
    let live = true;
    api.plans(slug).then(
      (products) => {
        if (!live) return;
        setPlans(
          products
            // A plan without a price in the subscription's currency cannot take it (the server
            // refuses): it is not offered.
            .filter(
              (p) =>
                p.is_recurring &&
                !p.is_archived &&
                p.id !== s.product.id &&
                planPrice(p, s.currency) !== "",
            )
            .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true })),
        );
      },
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [api, slug, s.product.id, s.currency]);
  // Focus follows the step, so a keyboard user lands on the choices, then on the confirmation.
  const firstRef = useRef<HTMLInputElement>(null);
  const loaded = plans !== null;
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (loaded) firstRef.current?.focus();
  }, [confirming, loaded]);

  const chosen = plans?.find((p) => p.id === selected) ?? null;
  const needsCard =
    chosen !== null && !hasCard && !chosen.prices.some((p) => p.amount_type === "free");
  const apply = async () => {
    if (!chosen || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onChanged(await api.changePlan(s.id, chosen.id), chosen);
    } catch (err) {
      // A declined card (402) is fixed under Payment method: the page says where.
      const declined = err instanceof PortalApiError && err.status === 402;
      setError(
        err instanceof Error
          ? `${err.message}${declined ? " Add another card under Payment method, then try again." : ""}`
          : "The plan could not be changed. Try again.",
      );
      setBusy(false);
    }
  };
  const legend = `Choose a new plan for ${s.product.name}`;
  return (
    <div className="change-plan">
      {confirming && chosen ? (
        <section className="confirm-plan" aria-labelledby={`confirm-${s.id}`}>
          <h3 id={`confirm-${s.id}`} ref={confirmRef} tabIndex={-1}>
            Switch to {chosen.name}?
          </h3>
          <p>
            {s.product.name} → <strong>{chosen.name}</strong>, {planPrice(chosen, s.currency)}.
          </p>
          <p className="muted">{settlement(s.product.organization.proration_behavior, s)}</p>
          <div className="actions">
            {/* aria-disabled: a disabled button would drop the focus, also on a refusal. */}
            <button type="button" aria-disabled={busy} onClick={() => busy || setConfirming(false)}>
              Back
            </button>
            <button
              type="button"
              className="confirm-plan-change"
              aria-disabled={busy}
              onClick={() => void apply()}
            >
              {busy ? "Changing…" : `Change to ${chosen.name}`}
            </button>
          </div>
        </section>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen && !needsCard) setConfirming(true);
          }}
        >
          <fieldset className="plans" aria-busy={plans === null}>
            <legend>{legend}</legend>
            <p className="muted current-plan">
              Current plan: {s.product.name}, {money(s.amount, s.currency)} /{" "}
              {every(s.recurring_interval, s.recurring_interval_count)}
            </p>
            {plans === null && !error ? <p className="muted">Loading plans…</p> : null}
            {plans?.length === 0 ? <p className="muted">No other plans are available.</p> : null}
            {plans?.map((p, i) => (
              <label key={p.id} className="plan-option" data-plan={p.id}>
                <input
                  ref={p.id === selected || (!selected && i === 0) ? firstRef : undefined}
                  type="radio"
                  name={`plan-${s.id}`}
                  value={p.id}
                  checked={selected === p.id}
                  onChange={() => setSelected(p.id)}
                />
                <span className="plan-name">{p.name}</span>
                <span className="plan-price">{planPrice(p, s.currency)}</span>
              </label>
            ))}
          </fieldset>
          {needsCard ? (
            <p className="muted needs-card">
              Add a card under Payment method before changing to a paid plan.
            </p>
          ) : null}
          <div className="actions">
            <button type="button" onClick={onClose}>
              Keep current plan
            </button>
            <button type="submit" disabled={!chosen || needsCard}>
              Continue
            </button>
          </div>
        </form>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
