// The hosted checkout: the order summary beside the form (stacked on a phone), all problems shown
// at once beside their fields with focus on the first, a seat-based price's seats picked with a
// stepper, a discount applied with Enter and removable, the card area, then the confirmation page
// (or the seller's success URL). Embedded, it tells the overlay loaded / close / confirmed /
// success.
import { type FormEvent, useCallback, useEffect, useMemo, useReducer, useRef } from "react";
import { CheckoutApiError, checkoutApi, LOST_CONNECTION } from "./api.ts";
import { Bar, EXPIRED, REFUSED, Skeleton, unavailable } from "./chrome.tsx";
import { embedAllowed, embedContext, forwardEscape, notify, notifyError } from "./embed.ts";
import { DiscountField } from "./discount.tsx";
import { AddressFields, BusinessFields, CustomFieldInput, Field } from "./fields.tsx";
import { leave, settle } from "./finish.ts";
import { money } from "./format.ts";
import { CardFields, cardErrors, cardToken, StripeCard } from "./payment.tsx";
import {
  type Action,
  addressModes,
  offersBusiness,
  confirmBody,
  type FormValues,
  formErrors,
  priceChange,
  reducer,
  type State,
  serverFieldErrors,
  withdrawn,
} from "./state.ts";
import { SeatsField } from "./seats.tsx";
import { type StripeForm, StripePaymentError, stripeSettings } from "./stripe.ts";
import { usePriceSync } from "./price-sync.ts";
import { Processing, useSettling } from "./processing.tsx";
import { OrderSummary } from "./summary.tsx";

/** Refusals of the buyer rather than of their card (checkouts/purchase-rules.ts). */
const BUYER_REFUSALS = new Set(["AlreadyActiveSubscriptionError", "TrialAlreadyRedeemed"]);
/** The buyer has used the session's discount up: the refusal belongs with the discount. */
const DISCOUNT_USED_UP = "DiscountRedemptionLimitReached";

export function CheckoutPage(props: { secret: string }) {
  const [state, dispatch] = useReducer(reducer, { kind: "loading" } as State);
  const checkout = state.kind === "loading" || state.kind === "unavailable" ? null : state.checkout;
  const embed = useMemo(
    () => embedContext(checkout?.embed_origin ?? null),
    [checkout?.embed_origin],
  );
  const formRef = useRef<HTMLFormElement>(null);
  const loaded = checkout !== null;
  // With Stripe, the Payment Element takes the card; its form arrives once Stripe.js has loaded.
  // Keyed by its values: each update of the session brings a new metadata object, and a new
  // settings object would remount the element and lose the card typed so far.
  const found = stripeSettings(checkout?.payment_processor_metadata);
  const stripeKey = found?.publishable_key ?? null;
  const stripeJs = found?.stripe_js_url ?? null;
  const stripe = useMemo(
    () => (stripeKey && stripeJs ? { publishable_key: stripeKey, stripe_js_url: stripeJs } : null),
    [stripeKey, stripeJs],
  );
  const stripeForm = useRef<StripeForm | null>(null);
  const onStripeReady = useCallback((form: StripeForm | null) => {
    stripeForm.current = form;
  }, []);
  const onStripeError = useCallback(
    (message: string) => dispatch({ type: "invalid", errors: { payment: message }, general: null }),
    [],
  );

  const priceSeq = usePriceSync(state, props.secret, dispatch);
  useSettling(state.kind === "processing" ? state.checkout : null, props.secret, dispatch);

  useEffect(() => {
    checkoutApi.get(props.secret).then(
      (c) => dispatch({ type: "loaded", checkout: c }),
      (e) => dispatch(unavailable(e)),
    );
  }, [props.secret]);

  const refused = loaded && !embedAllowed(embed);
  useEffect(() => {
    if (!loaded) return;
    if (refused) return notifyError(embed, `${REFUSED.title}. ${REFUSED.message}`);
    notify(embed, "loaded");
    return forwardEscape(embed);
  }, [embed, loaded, refused]);

  // Without a checkout there is no embed origin to trust: the overlay hears only "error".
  const failure = state.kind === "unavailable" ? `${state.title}. ${state.message}` : null;
  useEffect(() => {
    if (failure) notifyError(embedContext(null), failure);
  }, [failure]);

  // After a refused submit, focus goes to the first field with a problem (or the message).
  const attempt = state.kind === "ready" ? state.attempt : 0;
  useEffect(() => {
    if (attempt === 0) return;
    const first = formRef.current?.querySelector<HTMLElement>(
      '[aria-invalid="true"], #discount-error, #payment-error, #general-error',
    );
    first?.focus();
  }, [attempt]);

  // A checkout that is already paid (the page reopened) goes on to its confirmation.
  const doneCheckout = state.kind === "done" && !state.left ? state.checkout : null;
  useEffect(() => {
    if (doneCheckout) leave(props.secret, doneCheckout, null, embed);
  }, [doneCheckout, props.secret, embed]);

  const close = embed.embedded ? () => notify(embed, "close") : null;

  if (state.kind === "loading") return <Skeleton />;
  if (refused)
    return (
      <main className="checkout">
        <section className="notice" role="alert">
          <h1>{REFUSED.title}</h1>
          <p>{REFUSED.message}</p>
        </section>
      </main>
    );
  if (state.kind === "unavailable")
    return (
      <main className="checkout">
        <Bar name={null} onClose={close} closable />
        <section className="notice" role="alert">
          <h1>{state.title}</h1>
          <p>{state.message}</p>
        </section>
      </main>
    );
  if (state.kind === "processing") return <Processing checkout={state.checkout} />;
  if (state.kind === "done")
    return (
      <main className="checkout">
        <Bar name={state.checkout.organization.name} onClose={close} closable />
        <section className="notice" aria-live="polite">
          <h1>Payment complete</h1>
          <p>Taking you to your order…</p>
        </section>
      </main>
    );

  const { values, errors, busy } = state;
  const c = state.checkout;
  /** Beside the discount, where it can be removed; for the whole form where the page cannot. */
  const discountRefused = (message: string): Action => ({
    type: "invalid",
    errors: c.allow_discount_codes ? { discount: message } : {},
    general: c.allow_discount_codes ? null : message,
  });
  const edit = (v: Partial<FormValues>) => dispatch({ type: "edit", values: v });

  /** Sends a change of the session (the discount code, the seats); a refusal shows beside it. */
  async function updateSession(
    field: "discount" | "seats",
    body: { discount_code: string | null } | { seats: number },
    values?: Partial<FormValues>,
  ) {
    dispatch({ type: "busy", busy: field });
    try {
      const updated = await checkoutApi.update(props.secret, body);
      dispatch({ type: "updated", checkout: updated, ...(values ? { values } : {}) });
    } catch (e) {
      if (e instanceof StripePaymentError)
        return dispatch({ type: "invalid", errors: { payment: e.message }, general: null });
      const err = e as CheckoutApiError;
      if (err.status === 410) return dispatch({ type: "unavailable", ...EXPIRED });
      const sent = Object.keys(body)[0] ?? field;
      if (err.name_ === DISCOUNT_USED_UP) return dispatch(discountRefused(err.message));
      dispatch({
        type: "invalid",
        errors: {
          ...errors,
          [field]: err.status === 0 ? LOST_CONNECTION : (err.fields[sent] ?? err.message),
        },
        general: null,
      });
    }
  }

  async function pay(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const problems = {
      ...formErrors(c, values),
      ...(c.is_payment_form_required && !stripe ? cardErrors(values.card) : {}),
    };
    if (Object.keys(problems).length)
      return dispatch({ type: "invalid", errors: problems, general: null });
    dispatch({ type: "busy", busy: "paying" });
    let confirmedOnce = false;
    try {
      const change = priceChange(c, values);
      if (change) {
        // Typed just before paying: the buyer sees the new total before paying it.
        priceSeq.current++;
        const updated = await checkoutApi.update(props.secret, change);
        dispatch({ type: "repriced", checkout: updated });
        // Withdrawn by the seller meanwhile: the page now says so, and nothing is confirmed.
        if (withdrawn(updated)) return;
        if (updated.total_amount !== c.total_amount)
          return dispatch({
            type: "invalid",
            errors: {},
            general: `The total is now ${money(updated.total_amount, updated.currency)}. Check it and pay again.`,
          });
      }
      let token: string | undefined;
      if (c.is_payment_form_required && stripe) {
        if (!stripeForm.current) throw new StripePaymentError("The card form is still loading.");
        token = await stripeForm.current.token();
      } else if (c.is_payment_form_required) {
        try {
          token = await cardToken(values.card);
        } catch (e) {
          const err = e as CheckoutApiError;
          throw err.status === 0
            ? err
            : new CheckoutApiError(422, "CardError", err.message, {
                confirmation_token_id: err.message,
              });
        }
      }
      const confirmed = await checkoutApi.confirm(props.secret, {
        ...confirmBody(c, values),
        ...(token ? { confirmation_token_id: token } : {}),
      });
      // The payment has started: from here the overlay must not be closed until it settles.
      confirmedOnce = true;
      notify(embed, "confirmed");
      const action = confirmed.payment_processor_metadata ?? {};
      let refused: unknown = null;
      if (action.intent_status === "requires_action" && stripeForm.current)
        // 3-D Secure: the bank's challenge, then the session settles from Stripe's webhook.
        await stripeForm.current
          .nextAction(String(action.intent_client_secret))
          .catch((e: unknown) => (refused = e));
      const final = await settle(props.secret, confirmed);
      if (refused && final.status !== "succeeded") throw refused;
      if (final.status !== "succeeded")
        throw new CheckoutApiError(
          402,
          "PaymentError",
          "The payment did not go through. Try another card.",
          {},
        );
      dispatch({ type: "done", checkout: final, left: true });
      leave(props.secret, final, confirmed.customer_session_token ?? null, embed);
    } catch (e) {
      if (e instanceof StripePaymentError)
        return dispatch({ type: "invalid", errors: { payment: e.message }, general: null });
      const err = e as CheckoutApiError;
      if (err.status === 410) return dispatch({ type: "unavailable", ...EXPIRED });
      // Paid (or being paid) in another tab meanwhile: show the session as it now is.
      const now =
        err.name_ === "NotOpenCheckout"
          ? await checkoutApi.get(props.secret).catch(() => null)
          : null;
      if (now && now.status !== "open") return dispatch({ type: "loaded", checkout: now });
      const fields = serverFieldErrors(err);
      const general = fields.general ?? null;
      delete fields.general;
      if (Object.keys(fields).length || general)
        return dispatch({ type: "invalid", errors: fields, general });
      if (err.status === 0)
        return dispatch({
          type: "invalid",
          errors: {},
          general: confirmedOnce
            ? "The connection was lost while the payment was processed. Do not pay again: reload this page to see whether it went through."
            : LOST_CONNECTION,
        });
      // Not the card: the discount is used up for this buyer, who may remove it and pay.
      if (err.name_ === DISCOUNT_USED_UP) return dispatch(discountRefused(err.message));
      // Refused for who is buying (a subscription already held, a trial already had): not the card.
      if (BUYER_REFUSALS.has(err.name_))
        return dispatch({ type: "invalid", errors: {}, general: err.message });
      // A decline (or any refusal of the payment) belongs beside the card.
      dispatch({
        type: "invalid",
        errors: c.is_payment_form_required ? { payment: err.message } : {},
        general: c.is_payment_form_required ? null : err.message,
      });
    }
  }

  const price = c.product_price;
  return (
    <main className="checkout">
      <Bar name={c.organization.name} onClose={close} closable={busy !== "paying"} />
      <div className="columns">
        <OrderSummary checkout={c} />
        <form ref={formRef} onSubmit={(e) => void pay(e)} noValidate aria-label="Payment details">
          {price.amount_type === "custom" ? (
            <Field id="amount" label={`Amount (${c.currency.toUpperCase()})`} error={errors.amount}>
              {(a) => (
                <input
                  {...a}
                  name="amount"
                  inputMode="decimal"
                  value={values.amount}
                  onChange={(e) => edit({ amount: e.target.value })}
                />
              )}
            </Field>
          ) : null}
          <SeatsField
            checkout={c}
            error={errors.seats}
            busy={busy !== null}
            onChange={(seats) => void updateSession("seats", { seats })}
          />
          <Field id="email" label="Email" error={errors.email}>
            {(a) => (
              <input
                {...a}
                name="email"
                type="email"
                autoComplete="email"
                value={values.email}
                onChange={(e) => edit({ email: e.target.value })}
              />
            )}
          </Field>
          <Field id="name" label="Name (optional)" error={errors.name}>
            {(a) => (
              <input
                {...a}
                name="name"
                autoComplete="name"
                value={values.name}
                onChange={(e) => edit({ name: e.target.value })}
              />
            )}
          </Field>
          {offersBusiness(c) ? (
            <BusinessFields value={values} errors={errors} onChange={edit} />
          ) : null}
          <AddressFields
            modes={addressModes(c, values.address, values.business)}
            value={values.address}
            errors={errors}
            onChange={(address) => edit({ address })}
          />
          {c.attached_custom_fields
            .slice()
            .sort((a, b) => a.order - b.order)
            .map((a) => (
              <CustomFieldInput
                key={a.custom_field_id}
                field={a.custom_field}
                required={a.required}
                value={values.custom[a.custom_field.slug]}
                error={errors[`custom-${a.custom_field.slug}`]}
                onChange={(v) => edit({ custom: { ...values.custom, [a.custom_field.slug]: v } })}
              />
            ))}
          <DiscountField
            checkout={c}
            code={values.code}
            error={errors.discount}
            busy={busy !== null}
            onEdit={(code) => edit({ code })}
            onApply={(code) =>
              void updateSession("discount", { discount_code: code }, { code: "" })
            }
          />
          {c.is_payment_form_required && stripe ? (
            <StripeCard
              settings={stripe}
              amount={c.total_amount}
              currency={c.currency}
              recurring={c.product.is_recurring}
              disabled={busy === "paying"}
              onReady={onStripeReady}
              onError={onStripeError}
            />
          ) : c.is_payment_form_required ? (
            <CardFields
              value={values.card}
              errors={errors}
              disabled={busy === "paying"}
              onChange={(card) => edit({ card })}
            />
          ) : null}
          {errors.payment ? (
            <p className="error banner" id="payment-error" role="alert" tabIndex={-1}>
              {errors.payment}
            </p>
          ) : null}
          {state.general ? (
            <p className="error banner" id="general-error" role="alert" tabIndex={-1}>
              {state.general}
            </p>
          ) : null}
          <button type="submit" className="pay" aria-disabled={busy === "paying"}>
            {busy === "paying"
              ? "Processing…"
              : c.active_trial_interval
                ? "Start free trial"
                : c.is_payment_required
                  ? `Pay ${money(c.total_amount, c.currency)}`
                  : c.is_payment_form_required
                    ? "Subscribe"
                    : "Get it now"}
          </button>
        </form>
      </div>
    </main>
  );
}
