// The hosted checkout: product and price, email and name, billing address per the field modes,
// custom fields, discount code, the sandbox card form, then a confirmation. Errors from the server
// appear next to their fields. Embedded, it tells the overlay loaded / close / confirmed / success.
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { CheckoutApiError, checkoutApi, settledStatus } from "./api.ts";
import { embedContext, notify } from "./embed.ts";
import { AddressFields, CardFields, CustomFieldInput, Field, type CardValue } from "./fields.tsx";
import { confirmationPath, interval, money } from "./format.ts";
import type { Address, Checkout } from "./types.ts";

type Phase = "loading" | "ready" | "paying" | "done" | "gone";

export function CheckoutPage(props: { secret: string }) {
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [phase, setPhase] = useState<Phase>("loading");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [address, setAddress] = useState<Partial<Address>>({});
  const [custom, setCustom] = useState<Record<string, string | number | boolean | null>>({});
  const [amount, setAmount] = useState<string>("");
  const [code, setCode] = useState("");
  const [card, setCard] = useState<CardValue>({ number: "", expiry: "", cvc: "" });
  const embed = useMemo(
    () => embedContext(checkout?.embed_origin ?? null),
    [checkout?.embed_origin],
  );

  useEffect(() => {
    checkoutApi.get(props.secret).then(
      (c) => {
        setCheckout(c);
        setEmail(c.customer_email ?? "");
        setName(c.customer_name ?? "");
        setAddress(c.customer_billing_address ?? {});
        setCustom(c.custom_field_data ?? {});
        if (c.product_price.amount_type === "custom") setAmount(String(c.amount / 100));
        setPhase(c.status === "succeeded" ? "done" : c.status === "open" ? "ready" : "gone");
      },
      (e: CheckoutApiError) => {
        setGeneral(
          e.status === 410
            ? "This checkout has expired."
            : e.status === 404
              ? "This checkout does not exist."
              : e.message,
        );
        setPhase("gone");
      },
    );
  }, [props.secret]);

  useEffect(() => {
    if (checkout) notify(embed, "loaded");
  }, [embed, checkout !== null]);

  if (phase === "loading") return <p className="muted">Loading checkout…</p>;
  if (!checkout)
    return (
      <Gone
        message={general ?? "This checkout is not available."}
        onClose={() => notify(embed, "close")}
        embedded={embed.embedded}
      />
    );

  const price = checkout.product_price;
  const closable = phase !== "paying";

  async function applyCode() {
    setErrors({});
    try {
      setCheckout(await checkoutApi.update(props.secret, { discount_code: code || null }));
    } catch (e) {
      setErrors({
        discount_code: (e as CheckoutApiError).fields.discount_code ?? (e as Error).message,
      });
    }
  }

  async function pay(event: FormEvent) {
    event.preventDefault();
    if (!checkout) return;
    setErrors({});
    setGeneral(null);
    setPhase("paying");
    try {
      let confirmationTokenId: string | undefined;
      if (checkout.is_payment_form_required) {
        const [month, year] = card.expiry.split("/").map((s) => Number(s.trim()));
        try {
          confirmationTokenId = (
            await checkoutApi.cardToken({
              number: card.number,
              exp_month: month ?? 0,
              exp_year: year ?? 0,
              cvc: card.cvc,
            })
          ).id;
        } catch (e) {
          throw new CheckoutApiError(422, "CardError", (e as CheckoutApiError).message, {
            card: (e as CheckoutApiError).message,
          });
        }
      }
      const hasAddress = Object.values(address).some(Boolean);
      const confirmed = await checkoutApi.confirm(props.secret, {
        customer_email: email,
        customer_name: name || null,
        ...(hasAddress ? { customer_billing_address: address } : {}),
        custom_field_data: custom,
        ...(price.amount_type === "custom" ? { amount: Math.round(Number(amount) * 100) } : {}),
        ...(confirmationTokenId ? { confirmation_token_id: confirmationTokenId } : {}),
      });
      // The payment has started: from here the overlay must not be closed until it settles.
      notify(embed, "confirmed");
      const final = await settle(props.secret, confirmed);
      setCheckout(final);
      if (final.status !== "succeeded")
        throw new CheckoutApiError(
          402,
          "PaymentError",
          "The payment did not go through. Try another card.",
          {},
        );
      setPhase("done");
      const successURL = final.success_url.replace("{CHECKOUT_ID}", final.id);
      // Without a success URL of the seller's, the buyer sees till's confirmation page: in the
      // overlay too (the frame moves there), so the seller's page is not navigated away.
      const own = new URL(successURL, window.location.href);
      const isDefault =
        own.origin === window.location.origin && own.pathname === confirmationPath(props.secret);
      notify(embed, "success", { successURL, redirect: !isDefault, checkoutId: final.id });
      if (isDefault) {
        const token = confirmed.customer_session_token;
        if (token) own.searchParams.set("customer_session_token", token);
        if (embed.embedded) own.searchParams.set("embed", "true");
        own.searchParams.set("theme", document.documentElement.dataset.theme ?? "light");
        window.location.assign(own.toString());
      } else if (!embed.embedded) window.location.assign(successURL);
    } catch (e) {
      const err = e as CheckoutApiError;
      const fields = err.fields ?? {};
      // A payment failure belongs beside the card; anything else without a field is shown once below.
      const besideCard = checkout.is_payment_form_required && err.name_ === "PaymentError";
      setErrors(Object.keys(fields).length ? fields : besideCard ? { card: err.message } : {});
      setGeneral(Object.keys(fields).length || besideCard ? null : err.message);
      setPhase("ready");
    }
  }

  if (phase === "done") {
    return (
      <main className="checkout">
        <Header
          checkout={checkout}
          embedded={embed.embedded}
          onClose={() => notify(embed, "close")}
          closable
        />
        <section className="confirmation" aria-live="polite">
          <h1>Thank you!</h1>
          <p>
            Your purchase of <strong>{checkout.product.name}</strong> is confirmed.
          </p>
        </section>
      </main>
    );
  }

  return (
    <main className="checkout">
      <Header
        checkout={checkout}
        embedded={embed.embedded}
        onClose={() => notify(embed, "close")}
        closable={closable}
      />
      <section className="summary" aria-label="Order summary">
        <h1>{checkout.product.name}</h1>
        {checkout.product.description ? (
          <p className="muted">{checkout.product.description}</p>
        ) : null}
        <p className="price">
          {price.amount_type === "free" ? "Free" : money(checkout.total_amount, checkout.currency)}
          {checkout.product.is_recurring ? (
            <span className="muted">{interval(checkout.product.recurring_interval)}</span>
          ) : null}
        </p>
        {checkout.discount_amount > 0 ? (
          <p className="muted">
            Discount {checkout.discount?.name}: −
            {money(checkout.discount_amount, checkout.currency)}
          </p>
        ) : null}
        {checkout.tax_amount ? (
          <p className="muted">Tax {money(checkout.tax_amount, checkout.currency)}</p>
        ) : null}
      </section>
      <form onSubmit={pay} noValidate aria-describedby={general ? "general-error" : undefined}>
        {price.amount_type === "custom" ? (
          <Field
            id="amount"
            label={`Amount (${checkout.currency.toUpperCase()})`}
            error={errors.amount}
          >
            <input
              id="amount"
              name="amount"
              inputMode="decimal"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
            />
          </Field>
        ) : null}
        <Field id="email" label="Email" error={errors.customer_email}>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field id="name" label="Name" error={errors.customer_name}>
          <input
            id="name"
            name="name"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <AddressFields
          modes={checkout.billing_address_fields}
          value={address}
          errors={errors}
          onChange={setAddress}
        />
        {checkout.attached_custom_fields
          .slice()
          .sort((a, b) => a.order - b.order)
          .map((a) => (
            <CustomFieldInput
              key={a.custom_field_id}
              field={a.custom_field}
              required={a.required}
              value={custom[a.custom_field.slug]}
              error={errors[`custom_field_data.${a.custom_field.slug}`]}
              onChange={(v) => setCustom({ ...custom, [a.custom_field.slug]: v })}
            />
          ))}
        {checkout.allow_discount_codes ? (
          <Field id="discount" label="Discount code" error={errors.discount_code}>
            <div className="row">
              <input
                id="discount"
                name="discount"
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
              <button type="button" className="secondary" onClick={applyCode}>
                Apply
              </button>
            </div>
          </Field>
        ) : null}
        {checkout.is_payment_form_required ? (
          <CardFields value={card} error={errors.card} onChange={setCard} />
        ) : null}
        {general ? (
          <p className="error" id="general-error" role="alert">
            {general}
          </p>
        ) : null}
        <button type="submit" className="pay" disabled={phase === "paying"}>
          {phase === "paying"
            ? "Processing…"
            : checkout.is_payment_form_required
              ? `Pay ${money(checkout.total_amount, checkout.currency)}`
              : "Get it now"}
        </button>
      </form>
    </main>
  );
}

/**
 * After confirm: wait until the checkout leaves `confirmed` (the payment settles server-side). The
 * status stream says when; if it cannot be opened, poll.
 */
async function settle(secret: string, checkout: Checkout): Promise<Checkout> {
  if (checkout.status !== "confirmed") return checkout;
  if (await settledStatus(secret, 30_000)) return checkoutApi.get(secret);
  let current = await checkoutApi.get(secret);
  for (let i = 0; i < 60 && current.status === "confirmed"; i++) {
    await new Promise((r) => setTimeout(r, 500));
    current = await checkoutApi.get(secret);
  }
  return current;
}

function Header(props: {
  checkout: Checkout;
  embedded: boolean;
  closable: boolean;
  onClose(): void;
}) {
  return (
    <header className="bar">
      <span className="org">{props.checkout.organization.name}</span>
      {props.embedded ? (
        <button
          type="button"
          className="close"
          aria-label="Close checkout"
          onClick={props.onClose}
          disabled={!props.closable}
        >
          ×
        </button>
      ) : null}
    </header>
  );
}

function Gone(props: { message: string; embedded: boolean; onClose(): void }) {
  return (
    <main className="checkout">
      {props.embedded ? (
        <header className="bar">
          <span />
          <button
            type="button"
            className="close"
            aria-label="Close checkout"
            onClick={props.onClose}
          >
            ×
          </button>
        </header>
      ) : null}
      <p role="alert">{props.message}</p>
    </main>
  );
}
