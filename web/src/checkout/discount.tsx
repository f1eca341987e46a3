// The discount code: applied with Enter or its button (Enter never submits the payment), shown
// with its amount once applied, and removable; a refusal of the applied one (used up by this
// buyer) shows beside it.
import type { KeyboardEvent } from "react";
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
  function onKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    if (props.code.trim()) props.onApply(props.code.trim());
  }
  return c.allow_discount_codes ? (
    c.discount ? (
      <div className="applied">
        <span>
          Discount <strong>{c.discount.code ?? c.discount.name}</strong> applied: −
          {money(c.discount_amount, c.currency)}
        </span>
        <button
          type="button"
          className="link"
          disabled={props.busy}
          onClick={() => props.onApply(null)}
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
      <Field id="discount" label="Discount code (optional)" error={props.error}>
        {(a) => (
          <div className="row">
            <input
              {...a}
              name="discount"
              autoComplete="off"
              value={props.code}
              onKeyDown={onKey}
              onChange={(e) => props.onEdit(e.target.value)}
            />
            <button
              type="button"
              className="secondary"
              disabled={props.busy || !props.code.trim()}
              onClick={() => props.onApply(props.code.trim())}
            >
              Apply
            </button>
          </div>
        )}
      </Field>
    )
  ) : null;
}
