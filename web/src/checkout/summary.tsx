// The order summary: the product, then subtotal, discount, tax and total, and for a subscription
// what later periods cost. On a phone it folds into the product's name and one line with the total,
// opened on demand.
import { useEffect, useId, useRef, useState } from "react";
import { money, usagePriceLines } from "./format.ts";
import type { Checkout } from "./types.ts";

interface Discount {
  duration?: "once" | "forever" | "repeating";
  duration_in_months?: number;
}

/** "7-day free trial" when the purchase starts with one. */
export function trialLabel(c: Checkout): string | null {
  const unit = c.active_trial_interval;
  return unit ? `${c.active_trial_interval_count ?? 1}-${unit} free trial` : null;
}

/** The period's total without the discount, its tax at the checkout's rate. */
function undiscountedTotal(c: Checkout): number {
  const tax = c.tax_amount ?? 0;
  return c.amount + (c.net_amount > 0 ? Math.round((tax * c.amount) / c.net_amount) : tax);
}

/** A discount that ends: how many periods it lasts (1 for `once`), else null. */
function endingDiscount(c: Checkout): number | null {
  const d = (c.discount ?? null) as Discount | null;
  if (!d || c.discount_amount === 0 || d.duration === "forever") return null;
  return d.duration === "repeating" ? Math.max(d.duration_in_months ?? 1, 1) : 1;
}

/** "then $19.00 / month" (or "for 3 months, then …") when a discount does not last. */
export function laterPeriods(c: Checkout): string | null {
  const interval = c.product.recurring_interval;
  if (!c.product.is_recurring || !interval) return null;
  const periods = endingDiscount(c);
  // After a trial the first charge is the checkout's total, the discount's first period (as
  // Polar counts it); a discount that ends then gives way to the full price.
  if (trialLabel(c)) {
    const first = `then ${money(c.total_amount, c.currency)} / ${interval}`;
    if (periods === null) return first;
    const full = `${money(undiscountedTotal(c), c.currency)} / ${interval}`;
    return `${first} for ${periods === 1 ? `the first ${interval}` : `${periods} months`}, then ${full}`;
  }
  if (periods === null) return null;
  const full = money(undiscountedTotal(c), c.currency);
  if (periods > 1) return `for ${periods} months, then ${full} / ${interval}`;
  return `then ${full} / ${interval}`;
}

/**
 * What the subscription renews at: "$20.00 / month", or "$15.00 / month for the first 3 months,
 * then $20.00 / month" while a repeating discount lasts; a `once` discount is not renewed, unless
 * a trial came first (its end is the discount's first charge).
 */
export function renewalPrice(c: Checkout): string | null {
  const interval = c.product.recurring_interval;
  if (!c.product.is_recurring || !interval) return null;
  const periods = endingDiscount(c);
  const discounted = `${money(c.total_amount, c.currency)} / ${interval}`;
  if (periods === null) return discounted;
  const full = `${money(undiscountedTotal(c), c.currency)} / ${interval}`;
  if (periods > 1) return `${discounted} for the first ${periods} months, then ${full}`;
  return trialLabel(c) ? `${discounted} for the first ${interval}, then ${full}` : full;
}

/** "Plus $0.005 per unit of API calls, billed each month" for each price billed from usage later. */
export function usagePrices(c: Checkout): string[] {
  return usagePriceLines(c.product.prices ?? [], c.currency, c.product.recurring_interval ?? null);
}

export function OrderSummary({ checkout: c }: { checkout: Checkout }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const interval = c.product.is_recurring ? c.product.recurring_interval : null;
  const later = laterPeriods(c);
  const free = c.total_amount === 0 && c.product_price.amount_type === "free";
  const trial = trialLabel(c);
  const total = free ? "Free" : trial ? money(0, c.currency) : money(c.total_amount, c.currency);
  const dueLabel = interval ? "Due today" : "Total";
  const due = trial ? total : money(c.total_amount, c.currency);
  const announced = useChangeAnnouncement(`${dueLabel} now ${due}`);
  return (
    <section className="summary" aria-label="Order summary" data-open={open}>
      {/* Outside the fold: on a phone the buyer sees (and hears) what they buy before opening it. */}
      <h1 className="product-name">{c.product.name}</h1>
      <button
        type="button"
        className="summary-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <span>{open ? "Hide order summary" : "Show order summary"}</span>
        <strong>{total}</strong>
      </button>
      {/* Outside the fold too: a folded summary is hidden, and hidden regions are not heard. */}
      <p className="sr-only" aria-live="polite" data-testid="total-announcement">
        {announced}
      </p>
      <div className="summary-body" id={bodyId}>
        {c.product.description ? (
          <p className="muted description">{c.product.description}</p>
        ) : null}
        <p className="price">
          {trial ?? total}
          {interval && !trial ? (
            <span className="muted">{later ? ` for the first ${interval}` : ` / ${interval}`}</span>
          ) : null}
        </p>
        {later ? <p className="later">{later}</p> : null}
        {usagePrices(c).map((line) => (
          <p className="later" key={line}>
            {line}
          </p>
        ))}
        {c.product.benefits.length ? (
          <ul className="included">
            {c.product.benefits.map((b) => (
              <li key={b.id}>{b.description}</li>
            ))}
          </ul>
        ) : null}
        <dl className="lines">
          <div>
            <dt>Subtotal</dt>
            <dd>{money(c.amount, c.currency)}</dd>
          </div>
          {c.discount_amount > 0 ? (
            <div>
              <dt>Discount{c.discount ? ` (${c.discount.code ?? c.discount.name})` : ""}</dt>
              <dd>−{money(c.discount_amount, c.currency)}</dd>
            </div>
          ) : null}
          {c.tax_amount !== null ? (
            <div>
              <dt>Tax</dt>
              <dd>{money(c.tax_amount, c.currency)}</dd>
            </div>
          ) : null}
          <div className="total">
            <dt>{dueLabel}</dt>
            <dd data-testid="total">{due}</dd>
          </div>
        </dl>
      </div>
    </section>
  );
}

/**
 * `text` once it differs from what was last said, and nothing at first: the page's own total is
 * read with the page, only a change (country, discount, amount) needs saying. The total moves
 * only when the server answers, a moment after typing stops, so each change is said once.
 */
function useChangeAnnouncement(text: string): string {
  const said = useRef(text);
  const [announcement, setAnnouncement] = useState("");
  useEffect(() => {
    if (text === said.current) return;
    said.current = text;
    setAnnouncement(text);
  }, [text]);
  return announcement;
}
