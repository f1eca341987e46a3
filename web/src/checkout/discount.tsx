// The discount code: applied with Enter or its button (Enter never submits the payment), shown
// with its amount once applied, and removable; a refusal of the applied one (used up by this
// buyer) shows beside it.
import { type KeyboardEvent, useEffect, useRef } from "react";
import { Field } from "./fields.tsx";
import { money } from "./format.ts";
import type { Checkout } from "./types.ts";

export function DiscountField(props: {
  checkout: Checkout;
  code: string;
  error: string | undefined;
  busy: boolean;
  onEdit: (code: string) => void;
  onApply: (code: string | null) => void;
}) {
  const c = props.checkout;
  const input = useRef<HTMLInputElement>(null);
  const remove = useRef<HTMLButtonElement>(null);
  const applied = c.discount?.id ?? null;
  const shown = useRef(applied);
  useEffect(() => {
    if (shown.current === applied) return;
    shown.current = applied;
    // The control just used (Apply, Remove, the field itself) is gone: focus goes to the one that
    // took its place rather than back to the start of the page.
    if (document.activeElement && document.activeElement !== document.body) return;
    (applied ? remove : input).current?.focus();
  }, [applied]);
  function onKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    if (props.code.trim()) props.onApply(props.code.trim());
  }
  return c.allow_discount_codes ? (
    c.discount ? (
      <div className="applied">
        <span>
          Discount <strong>{c.discount.code ?? c.discount.name}</strong> applied:{" "}
          {/* One piece: a phone must not put the minus sign and the amount on different lines. */}
          <span className="amount">−{money(c.discount_amount, c.currency)}</span>
        </span>
        <button
          ref={remove}
          type="button"
          className="link"
          aria-disabled={props.busy}
          onClick={() => props.busy || props.onApply(null)}
        >
          Remove
          <span className="sr-only"> discount {c.discount.code ?? c.discount.name}</span>
        </button>
        {props.error ? (
          <p className="error" id="discount-error" role="alert" tabIndex={-1}>
            {props.error}
          </p>
        ) : null}
      </div>
    ) : (
      <Field id="discount" label="Discount code (optional)" error={props.error} announce>
        {(a) => (
          <div className="row">
            <input
              {...a}
              ref={input}
              name="discount"
              autoComplete="off"
              value={props.code}
              onKeyDown={onKey}
              onChange={(e) => props.onEdit(e.target.value)}
            />
            <button
              type="button"
              className="secondary"
              disabled={!props.code.trim()}
              aria-disabled={props.busy}
              onClick={() => props.busy || props.onApply(props.code.trim())}
            >
              Apply
            </button>
          </div>
        )}
      </Field>
    )
  ) : null;
}
