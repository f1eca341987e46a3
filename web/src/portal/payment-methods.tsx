// The customer's cards in the portal: the saved ones, and a new card saved as the default, after
// which the server retries at once any payment that failed (the failed-payment mail links here).
// The card form is the checkout's: the sandbox's fields, or Stripe's Payment Element (a SetupIntent,
// with the bank's challenge finished here when it asks for one).
import { useCallback, useEffect, useRef, useState } from "react";
import {
  CardFields,
  cardErrors,
  cardToken,
  emptyCard,
  StripeCard,
  type CardValue,
} from "../checkout/payment.tsx";
import type { StripeForm } from "../checkout/stripe.ts";
import { cardSettings, type CardSettings, type PaymentMethod, type PortalApi } from "./api.ts";

const cardLabel = (m: PaymentMethod) => {
  const { brand, last4, exp_month, exp_year } = m.method_metadata;
  const expiry = exp_month ? ` · expires ${String(exp_month).padStart(2, "0")}/${exp_year}` : "";
  return `${brand ? brand[0]!.toUpperCase() + brand.slice(1) : "Card"} •••• ${last4 ?? "????"}${expiry}`;
};

export function PaymentMethods({
  api,
  methods,
  defaultId,
  pastDue,
  currency,
  onChange,
}: {
  api: PortalApi;
  methods: PaymentMethod[];
  defaultId: string | null;
  /** The currency the card is set up for (Stripe's element asks for one). */
  currency: string;
  /** Whether a payment is due: the section then says so and opens the form at once. */
  pastDue: boolean;
  /** Reloads the page's data; answers whether the page shows it (else the page says so). */
  onChange: () => Promise<boolean>;
}) {
  const [adding, setAdding] = useState(pastDue);
  const [card, setCard] = useState<CardValue>(emptyCard);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // What the last card saved did: made the default, or paid what was due (or not: the page says
  // so once it shows the subscriptions as they are after the retry).
  const [saved, setSaved] = useState<"default" | "retried" | "removed" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [settings, setSettings] = useState<CardSettings | null>(null);
  const [stripeForm, setStripeForm] = useState<StripeForm | null>(null);
  useEffect(() => void cardSettings().then(setSettings), []);
  const onStripeError = useCallback((message: string) => setError(message), []);
  // Opening, closing and refusing the form replace or disable the control the buyer used: focus
  // goes, once the page shows it, to the form's first field (a problem's first) or to Add a card.
  const focusNext = useRef<"form" | "open" | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const target =
      focusNext.current === "form"
        ? formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], input')
        : focusNext.current === "open"
          ? openRef.current
          : null;
    target?.focus();
    if (target && document.activeElement === target) focusNext.current = null;
  });
  // A removal refused (the last card of a subscription still billed) says why, by the card.
  const remove = async (m: PaymentMethod) => {
    setError(null);
    setSaved(null);
    setBusy(true);
    try {
      await api.removePaymentMethod(m.id);
      focusNext.current = "open";
      if (!(await onChange())) focusNext.current = null;
      setSaved("removed");
    } catch (err) {
      setError(err instanceof Error ? err.message : "The card could not be removed.");
    } finally {
      setBusy(false);
    }
  };
  const stripe = settings?.stripe ?? null;
  const canAdd = settings !== null && (settings.sandbox || stripe !== null);
  const save = async () => {
    const found = stripe ? {} : cardErrors(card);
    setErrors(found);
    setError(null);
    setSaved(null);
    focusNext.current = "form";
    if (Object.keys(found).length > 0) return;
    if (stripe && !stripeForm) return;
    setBusy(true);
    try {
      let added = await api.addPaymentMethod(
        stripe ? await stripeForm!.token() : await cardToken(card),
      );
      if (added.status === "requires_action") {
        if (!stripeForm) throw new Error("Your bank asks to confirm this card. Try another card.");
        await stripeForm.nextAction(added.client_secret);
        added = await api.confirmPaymentMethod(added.client_secret.split("_secret_")[0]!);
        if (added.status !== "succeeded") throw new Error("Your bank did not confirm this card.");
      }
      setCard(emptyCard);
      setAdding(false);
      focusNext.current = "open";
      // Said once the page shows the card (and the payment retried with it): a page that could not
      // be refreshed does not know how the retry went, and says only what is sure.
      const shown = await onChange();
      if (!shown) focusNext.current = null;
      setSaved(shown && pastDue ? "retried" : "default");
    } catch (err) {
      setError(err instanceof Error ? err.message : "The card could not be saved.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="cards-h">
      <h2 id="cards-h">Payment method</h2>
      {pastDue ? (
        <p className="notice" role="status">
          A payment failed. Add a card to pay it now.
        </p>
      ) : null}
      {methods.map((m) => (
        <div key={m.id} className="card row" data-payment-method={m.id}>
          <span>{cardLabel(m)}</span>
          {m.id === defaultId ? <span className="muted">Default</span> : null}
          <button
            type="button"
            className="remove-card"
            aria-label={`Remove ${cardLabel(m)}`}
            disabled={busy}
            onClick={() => void remove(m)}
          >
            Remove
          </button>
        </div>
      ))}
      {methods.length === 0 ? <p className="muted">No card saved.</p> : null}
      {adding && canAdd ? (
        <form
          ref={formRef}
          className="card add-card"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          {stripe ? (
            <StripeCard
              settings={stripe}
              amount={0}
              currency={currency}
              recurring
              disabled={busy}
              onReady={setStripeForm}
              onError={onStripeError}
            />
          ) : (
            <CardFields value={card} errors={errors} disabled={busy} onChange={setCard} />
          )}
          <div className="row">
            <button
              type="button"
              onClick={() => {
                focusNext.current = "open";
                setAdding(false);
              }}
              disabled={busy}
            >
              Back
            </button>
            <button type="submit" className="save-card" disabled={busy}>
              {busy ? "Saving…" : pastDue ? "Save card and pay" : "Save card"}
            </button>
          </div>
        </form>
      ) : canAdd ? (
        <button
          ref={openRef}
          type="button"
          className="add-card-open"
          onClick={() => {
            focusNext.current = "form";
            setAdding(true);
          }}
        >
          Add a card
        </button>
      ) : null}
      {saved === "retried" && pastDue ? (
        <p role="alert" className="error declined-again">
          Your card was saved, but the payment was declined again. Add another card to pay it.
        </p>
      ) : saved ? (
        <p role="status" className="muted">
          {saved === "retried"
            ? "Card saved. The payment due is paid."
            : saved === "removed"
              ? "Card removed."
              : "Card saved as your default."}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </section>
  );
}
