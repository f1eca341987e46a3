// The card area of the checkout: the sandbox card form (number, expiry, CVC), its checks, and the
// exchange of the card for a confirmation token. A processor's own element can take its place: the
// page only needs an area, its errors by field id, and a token.
import { useEffect, useRef } from "react";
import { checkoutApi } from "./api.ts";
import { Field } from "./fields.tsx";
import { mountStripe, type StripeForm, type StripeSettings } from "./stripe.ts";

export interface CardValue {
  number: string;
  expiry: string;
  cvc: string;
}

export const emptyCard: CardValue = { number: "", expiry: "", cvc: "" };

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function parseExpiry(expiry: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

/** Every problem with the card at once, keyed by the input's id. */
export function cardErrors(card: CardValue, now = new Date()): Record<string, string> {
  const errors: Record<string, string> = {};
  const digits = card.number.replace(/[\s-]/g, "");
  if (!digits) errors["card-number"] = "Enter your card number.";
  else if (!/^\d{12,19}$/.test(digits) || !luhn(digits))
    errors["card-number"] = "This card number is not valid.";
  const expiry = parseExpiry(card.expiry);
  if (!card.expiry.trim()) errors["card-expiry"] = "Enter the expiry date.";
  else if (!expiry) errors["card-expiry"] = "Use MM/YY.";
  else if (
    expiry.year < now.getFullYear() ||
    (expiry.year === now.getFullYear() && expiry.month < now.getMonth() + 1)
  )
    errors["card-expiry"] = "This card has expired.";
  if (!card.cvc.trim()) errors["card-cvc"] = "Enter the security code.";
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) errors["card-cvc"] = "3 or 4 digits.";
  return errors;
}

/** The sandbox's confirmation token for a card that passed cardErrors. */
export async function cardToken(card: CardValue): Promise<string> {
  const expiry = parseExpiry(card.expiry);
  return (
    await checkoutApi.cardToken({
      number: card.number.replace(/[\s-]/g, ""),
      exp_month: expiry?.month ?? 0,
      exp_year: expiry?.year ?? 0,
      cvc: card.cvc.trim(),
    })
  ).id;
}

export function CardFields(props: {
  value: CardValue;
  errors: Record<string, string>;
  disabled: boolean;
  onChange(v: CardValue): void;
}) {
  const set = (patch: Partial<CardValue>) => props.onChange({ ...props.value, ...patch });
  return (
    <fieldset className="card-fields" disabled={props.disabled}>
      <legend>Card</legend>
      <p className="help" id="card-help">
        Test mode: use 4242 4242 4242 4242, any future date and any CVC.
      </p>
      <Field id="card-number" label="Card number" error={props.errors["card-number"]}>
        {(a) => (
          <input
            {...a}
            name="card-number"
            inputMode="numeric"
            autoComplete="cc-number"
            aria-describedby={[a["aria-describedby"], "card-help"].filter(Boolean).join(" ")}
            value={props.value.number}
            onChange={(e) => set({ number: e.target.value })}
            placeholder="1234 1234 1234 1234"
          />
        )}
      </Field>
      <div className="row">
        <Field id="card-expiry" label="Expiry (MM/YY)" error={props.errors["card-expiry"]}>
          {(a) => (
            <input
              {...a}
              name="card-expiry"
              autoComplete="cc-exp"
              value={props.value.expiry}
              onChange={(e) => set({ expiry: e.target.value })}
              placeholder="MM/YY"
            />
          )}
        </Field>
        <Field id="card-cvc" label="CVC" error={props.errors["card-cvc"]}>
          {(a) => (
            <input
              {...a}
              name="card-cvc"
              inputMode="numeric"
              autoComplete="cc-csc"
              value={props.value.cvc}
              onChange={(e) => set({ cvc: e.target.value })}
              placeholder="123"
            />
          )}
        </Field>
      </div>
    </fieldset>
  );
}

/** Stripe's Payment Element in the card area; remounted when the amount to pay changes. */
export function StripeCard(props: {
  settings: StripeSettings;
  amount: number;
  currency: string;
  recurring: boolean;
  disabled: boolean;
  onReady(form: StripeForm | null): void;
  onError(message: string): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const { settings, amount, currency, recurring, onReady, onError } = props;
  useEffect(() => {
    let form: StripeForm | null = null;
    let gone = false;
    mountStripe(settings, host.current!, { amount, currency, recurring }).then(
      (mounted) => {
        if (gone) return mounted.destroy();
        form = mounted;
        onReady(mounted);
      },
      (e: Error) => onError(e.message),
    );
    return () => {
      gone = true;
      form?.destroy();
      onReady(null);
    };
  }, [settings, amount, currency, recurring, onReady, onError]);
  return (
    <fieldset className="card-fields" disabled={props.disabled}>
      <legend>Card</legend>
      <div ref={host} id="card-element" />
    </fieldset>
  );
}
