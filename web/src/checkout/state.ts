// The checkout page as a reducer over explicit states: loading, unavailable (expired, missing,
// offline), ready (with the form, its errors and what is in flight), processing (a payment already
// under way, as after a reload mid-payment) and done (leaving for the confirmation). Errors are keyed by the id of the input they belong to.
import {
  type AddressField,
  type AddressFieldModes,
  billingAddressFieldModes,
} from "../../../server/lib/billing-address-fields.ts";
import type { CheckoutApiError } from "./api.ts";
import { addressWords, localeCountry } from "./countries.ts";
import { money, toMajorText, toMinor } from "./format.ts";
import { type CardValue, emptyCard } from "./payment.tsx";
import type { Address, Checkout, Price } from "./types.ts";

export type Value = string | number | boolean | null;

export interface FormValues {
  email: string;
  name: string;
  address: Partial<Address>;
  custom: Record<string, Value>;
  amount: string;
  code: string;
  card: CardValue;
  /** A business purchase, with the business's name and tax ID. */
  business: boolean;
  billingName: string;
  taxId: string;
}

export type Busy = null | "paying" | "discount" | "seats";

export type State =
  | { kind: "loading" }
  | { kind: "unavailable"; title: string; message: string }
  | {
      kind: "ready";
      checkout: Checkout;
      values: FormValues;
      errors: Record<string, string>;
      /** A message for the whole form (lost connection, a server refusal without a field). */
      general: string | null;
      busy: Busy;
      /** Bumped on each refused submit so the page moves focus to the first error again. */
      attempt: number;
    }
  /** Confirmed, its payment not settled yet: the page waits for it instead of offering the form. */
  | { kind: "processing"; checkout: Checkout }
  /** Paid: `left` once the page has sent the buyer on (else it still has to). */
  | { kind: "done"; checkout: Checkout; left: boolean };

export type Action =
  | { type: "loaded"; checkout: Checkout }
  | { type: "unavailable"; title: string; message: string }
  | { type: "edit"; values: Partial<FormValues> }
  | { type: "busy"; busy: Busy }
  | { type: "invalid"; errors: Record<string, string>; general: string | null }
  | { type: "updated"; checkout: Checkout; values?: Partial<FormValues> }
  /** The session's new total for the amount or country typed: nothing else of the form moves. */
  | { type: "repriced"; checkout: Checkout }
  | { type: "done"; checkout: Checkout; left: boolean };

/**
 * The address fields for the country picked, by the rule the server applies at confirm (the
 * session's billing_address_fields follow its saved country, which lags the select while an update
 * is on its way). Null when the page asks for no address, as Polar's: no card to enter and no full
 * address required.
 */
export function addressModes(
  c: Checkout,
  address: Partial<Address>,
  business = c.is_business_customer,
): AddressFieldModes | null {
  const full = c.require_billing_address || business;
  if (!c.is_payment_form_required && !full) return null;
  return billingAddressFieldModes(address.country, full);
}

/** The address the form sends: the country and what was typed in the fields it shows. */
function addressToSend(c: Checkout, v: FormValues): Address | null {
  const { address } = v;
  const modes = addressModes(c, address, v.business);
  if (!modes || !address.country) return null;
  const shown = Object.entries(address).filter(
    ([key, value]) =>
      modes[key as AddressField] !== "disabled" && typeof value === "string" && value.trim(),
  );
  return { ...Object.fromEntries(shown), country: address.country };
}

function initialValues(c: Checkout): FormValues {
  const address: Partial<Address> = { ...(c.customer_billing_address ?? {}) };
  if (!address.country && addressModes(c, address)) address.country = localeCountry() ?? "";
  return {
    email: c.customer_email ?? "",
    name: c.customer_name ?? "",
    address,
    custom: { ...(c.custom_field_data ?? {}) },
    amount: c.product_price.amount_type === "custom" ? toMajorText(c.amount, c.currency) : "",
    code: "",
    card: emptyCard,
    business: c.is_business_customer,
    billingName: c.customer_billing_name ?? "",
    taxId: c.customer_tax_id ?? "",
  };
}

/**
 * Whether the page offers a business purchase: where it asks for a billing address (a card to
 * enter, or an address the seller requires), as Polar's does.
 */
export function offersBusiness(c: Checkout): boolean {
  return c.is_payment_form_required || c.require_billing_address || c.is_business_customer;
}

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case "loaded":
      return action.checkout.status === "succeeded"
        ? { kind: "done", checkout: action.checkout, left: false }
        : action.checkout.status === "confirmed"
          ? { kind: "processing", checkout: action.checkout }
          : action.checkout.status === "open" && withdrawn(action.checkout)
            ? WITHDRAWN
            : action.checkout.status === "open"
              ? {
                  kind: "ready",
                  checkout: action.checkout,
                  values: initialValues(action.checkout),
                  errors: {},
                  general: null,
                  busy: null,
                  attempt: 0,
                }
              : {
                  kind: "unavailable",
                  title: "This checkout is closed",
                  message: "It can no longer be paid. Ask the seller for a new link.",
                };
    case "unavailable":
      return { kind: "unavailable", title: action.title, message: action.message };
    case "done":
      return { kind: "done", checkout: action.checkout, left: action.left };
  }
  if (state.kind !== "ready") return state;
  switch (action.type) {
    case "edit": {
      // An edited field's message goes away; the others stay until the next submit.
      const errors = { ...state.errors };
      for (const id of touchedIds(action.values)) delete errors[id];
      return { ...state, values: { ...state.values, ...action.values }, errors };
    }
    case "busy":
      return {
        ...state,
        busy: action.busy,
        ...(action.busy === "paying" ? { general: null } : {}),
      };
    case "invalid":
      return {
        ...state,
        busy: null,
        errors: action.errors,
        general: action.general,
        attempt: state.attempt + 1,
      };
    case "repriced":
      if (withdrawn(action.checkout)) return WITHDRAWN;
      return { ...state, checkout: newer(state.checkout, action.checkout) };
    case "updated": {
      if (withdrawn(action.checkout)) return WITHDRAWN;
      // What the session accepted is no longer a problem (a removed discount's refusal with it).
      const { seats: _accepted, ...errors } = state.errors;
      for (const id of touchedIds(action.values ?? {})) delete errors[id];
      return {
        ...state,
        busy: null,
        errors,
        checkout: newer(state.checkout, action.checkout),
        values: { ...state.values, ...action.values },
      };
    }
  }
}

/** Two answers of the session in flight at once (seats and country) may arrive in either order. */
function newer(shown: Checkout, incoming: Checkout): Checkout {
  const at = (c: Checkout) => Date.parse(c.modified_at ?? "") || 0;
  return at(incoming) >= at(shown) ? incoming : shown;
}

function touchedIds(values: Partial<FormValues>): string[] {
  const ids: string[] = [];
  if ("email" in values) ids.push("email");
  if ("name" in values) ids.push("name");
  if ("amount" in values) ids.push("amount");
  if ("code" in values) ids.push("discount");
  if ("billingName" in values) ids.push("billing-name");
  if ("taxId" in values) ids.push("tax-id");
  if (values.address) ids.push(...Object.keys(values.address).map((k) => `address-${k}`));
  if (values.custom) ids.push(...Object.keys(values.custom).map((k) => `custom-${k}`));
  if (values.card) ids.push("card-number", "card-expiry", "card-cvc", "payment");
  return ids;
}

/**
 * The change of the session the form holds that moves the total: a valid pay-what-you-want amount
 * other than the session's, or another billing country (its tax), with the tax ID checked against
 * it. Null when the session is current.
 */
export function priceChange(c: Checkout, v: FormValues): Record<string, unknown> | null {
  const body: Record<string, unknown> = {};
  if (c.product_price.amount_type === "custom" && !formErrors(c, v).amount) {
    const cents = toMinor(v.amount, c.currency);
    if (cents !== c.amount) body.amount = cents;
  }
  const address = addressToSend(c, v);
  if (address && address.country !== (c.customer_billing_address?.country ?? "")) {
    body.customer_billing_address = address;
    // A tax ID is checked against the country: the one the buyer holds goes with the move, or
    // the session's, which its new country may refute, would refuse it.
    if (v.business || c.customer_tax_id)
      body.customer_tax_id = v.business ? v.taxId.trim() || null : null;
  }
  return Object.keys(body).length ? body : null;
}

/** What confirm sends besides the card: the buyer's details as the form holds them. */
export function confirmBody(c: Checkout, v: FormValues): Record<string, unknown> {
  const address = addressToSend(c, v);
  return {
    customer_email: v.email.trim(),
    customer_name: v.name.trim() || null,
    ...(address ? { customer_billing_address: address } : {}),
    // Sent when it is or was a business purchase: turning it off clears the seller's name and
    // tax ID on the session, which a session that never was one keeps.
    ...(v.business || c.is_business_customer ? { is_business_customer: v.business } : {}),
    ...(v.business
      ? { customer_billing_name: v.billingName.trim(), customer_tax_id: v.taxId.trim() || null }
      : {}),
    custom_field_data: v.custom,
    ...(c.product_price.amount_type === "custom" ? { amount: toMinor(v.amount, c.currency) } : {}),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Everything missing or malformed in the form (not the card), keyed by input id. */
export function formErrors(c: Checkout, v: FormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  const price = c.product_price;
  if (price.amount_type === "custom") {
    const cents = toMinor(v.amount, c.currency);
    if (!v.amount.trim() || !Number.isFinite(cents)) errors.amount = "Enter an amount.";
    else if (price.minimum_amount && cents < price.minimum_amount)
      errors.amount = `At least ${money(price.minimum_amount, c.currency)}.`;
    else if (price.maximum_amount && cents > price.maximum_amount)
      errors.amount = `At most ${money(price.maximum_amount, c.currency)}.`;
  }
  if (!v.email.trim()) errors.email = "Enter your email address.";
  else if (!EMAIL.test(v.email.trim()))
    errors.email = "Enter an email address like name@example.com.";
  if (v.business && !v.billingName.trim()) errors["billing-name"] = "Enter the business's name.";
  for (const [key, mode] of Object.entries(addressModes(c, v.address, v.business) ?? {})) {
    const value = v.address[key as keyof Address];
    if (mode === "required" && !(typeof value === "string" && value.trim()))
      errors[`address-${key}`] = addressMissing(key, v.address.country);
  }
  for (const a of c.attached_custom_fields) {
    const value = v.custom[a.custom_field.slug];
    const empty =
      value === undefined ||
      value === null ||
      value === "" ||
      (a.custom_field.type === "checkbox" && value === false);
    if (a.required && empty)
      errors[`custom-${a.custom_field.slug}`] =
        a.custom_field.type === "checkbox"
          ? "Required to continue."
          : `Enter ${a.custom_field.properties.form_label ?? a.custom_field.name}.`;
  }
  return errors;
}

const ADDRESS_WORDS: Record<string, string> = {
  line1: "address",
  city: "city",
  postal_code: "postal code",
  state: "state or region",
};

function addressMissing(key: string, country: string | undefined): string {
  if (key === "country") return "Choose your country.";
  // The US's states and Canada's provinces are picked from a list, named as the country names them.
  const state = addressWords(country).state;
  if (key === "state" && state) return `Choose your ${state.toLowerCase()}.`;
  return `Enter your ${ADDRESS_WORDS[key] ?? key}.`;
}

/** The input a 422's top-level `loc` names, where its id is fixed. */
const INPUT_OF_FIELD: Record<string, string> = {
  customer_email: "email",
  customer_name: "name",
  customer_billing_name: "billing-name",
  customer_tax_id: "tax-id",
  discount_code: "discount",
  confirmation_token_id: "payment",
  amount: "amount",
};

/**
 * The seller archived the product or replaced its price since the session opened: the session can
 * no longer be paid (confirm refuses it), so the page says so instead of offering it.
 */
export function withdrawn(c: Checkout): boolean {
  const price: Price | null = c.product_price;
  return price === null || c.product?.is_archived === true;
}

const WITHDRAWN: State = {
  kind: "unavailable",
  title: "This offer has changed",
  message:
    "The seller changed or withdrew it after this checkout was opened, and nothing was charged. Go back to the store to start again.",
};

const OFFER_CHANGED =
  "This offer changed since the page was opened, and nothing was charged. Reload the page to see it as it is now.";

/** A 422's `loc`s as input ids (customer_billing_address.city → address-city). */
export function serverFieldErrors(e: CheckoutApiError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [loc, msg] of Object.entries(e.fields)) {
    const [head, rest] = [loc.split(".")[0] ?? loc, loc.split(".").slice(1).join(".")];
    // The seller archived the product or replaced its price since the page was opened.
    if (head === "product_id" || head === "product_price_id") {
      errors.general ??= OFFER_CHANGED;
      continue;
    }
    const id =
      head === "customer_billing_address"
        ? `address-${rest || "country"}`
        : head === "custom_field_data"
          ? `custom-${rest}`
          : (INPUT_OF_FIELD[head] ?? "general");
    errors[id] ??= msg;
  }
  return errors;
}
