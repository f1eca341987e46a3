// The seats of a seat-based price: a stepper within the price's tiers (narrowed by the session's
// own min/max), each change sent to the session so the summary shows its new total. A typed number
// is sent when the field loses focus or on Enter (Enter never submits the payment).
import { type KeyboardEvent, useState } from "react";
import { Field } from "./fields.tsx";
import type { Checkout } from "./types.ts";

/** The seats the buyer may pick, or null when the price is not seat-based. */
export function seatRange(c: Checkout): { min: number; max: number | null } | null {
  if (c.product_price.amount_type !== "seat_based") return null;
  const tiers = c.product_price.seat_tiers;
  const min = Math.max(c.min_seats ?? 1, tiers?.minimum_seats ?? 1);
  const limits = [c.max_seats, tiers?.maximum_seats].filter((m): m is number => m != null);
  return { min, max: limits.length ? Math.min(...limits) : null };
}

export function SeatsField(props: {
  checkout: Checkout;
  error: string | undefined;
  busy: boolean;
  onChange: (seats: number) => void;
}) {
  const c = props.checkout;
  const range = seatRange(c);
  const seats = c.seats ?? range?.min ?? 1;
  // What the buyer typed, kept only while the session still has the seats it was typed over, so
  // a new count from the session shows in the same render as its new total.
  const [typed, setTyped] = useState<{ text: string; over: number } | null>(null);
  const text = typed && typed.over === seats ? typed.text : String(seats);
  if (!range) return null;
  const { min, max } = range;
  const inRange = (n: number) => n >= min && (max === null || n <= max);
  function commit() {
    const n = Number(text);
    if (Number.isInteger(n) && inRange(n) && n !== seats) props.onChange(n);
    else setTyped(null);
  }
  function onKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    // The blur commits: committing here too would send the seats twice.
    e.currentTarget.blur();
  }
  const help = max === null ? `At least ${min}.` : `From ${min} to ${max}.`;
  // Dimmed rather than disabled: a disabled button drops the keyboard's focus to the page's start
  // while the step is sent, so the next step would need the buyer to find the stepper again.
  const fewest = props.busy || seats <= min;
  const most = props.busy || (max !== null && seats >= max);
  return (
    <Field id="seats" label="Seats" error={props.error} help={help} announce>
      {(a) => (
        <div className="row stepper">
          <button
            type="button"
            className="secondary"
            aria-label="Remove a seat"
            aria-disabled={fewest}
            onClick={() => fewest || props.onChange(seats - 1)}
          >
            −
          </button>
          <input
            {...a}
            name="seats"
            inputMode="numeric"
            value={text}
            disabled={props.busy}
            onChange={(e) => setTyped({ text: e.target.value, over: seats })}
            onBlur={commit}
            onKeyDown={onKey}
          />
          <button
            type="button"
            className="secondary"
            aria-label="Add a seat"
            aria-disabled={most}
            onClick={() => most || props.onChange(seats + 1)}
          >
            +
          </button>
        </div>
      )}
    </Field>
  );
}
