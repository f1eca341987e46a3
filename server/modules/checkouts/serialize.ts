// Polar's Checkout (seller view) and CheckoutPublic (the page's view) from a checkout row and what it
// points at. Every key of the contract is present; unknown values are null.
import type { DiscountRow } from "../discounts/repository.ts";
import { billingAddressFieldModes } from "../../lib/billing-address-fields.ts";
import { addInterval, type Interval } from "../../lib/periods.ts";
import { priceIsFree } from "../products/prices.ts";
import type { ProductOut } from "../products/schemas.ts";
import type { CheckoutRow } from "./repository.ts";
import type { CheckoutOut, CheckoutPublicOut } from "./schemas.ts";
import { cardUse } from "./trial.ts";

export interface CheckoutView {
  row: CheckoutRow;
  clientSecret: string;
  url: string;
  products: ProductOut[];
  discount: DiscountRow | null;
  /** What the page needs from the processor (Stripe: the publishable key), as Polar sends it. */
  processorMetadata?: Record<string, string>;
}

export interface CheckoutPublicView extends CheckoutView {
  organization: {
    id: string;
    name: string;
    slug: string;
    avatarUrl: string | null;
    createdAt: Date;
    portal: {
      prorationBehavior: "invoice" | "prorate" | "next_period" | "reset";
      allowCustomerUpdates: boolean;
    };
  };
}

/** Polar's Checkout.is_billing_address_required: the seller asks for it, or a business buys. */
export function fullAddressRequired(row: CheckoutRow): boolean {
  return row.requireBillingAddress || row.isBusinessCustomer;
}

/** The fields the session's billing country asks for (Polar's billing_address_fields). */
export function billingAddressFields(row: CheckoutRow) {
  return billingAddressFieldModes(row.customerBillingAddress?.country, fullAddressRequired(row));
}

function discountOut(d: DiscountRow | null): CheckoutOut["discount"] {
  if (!d) return null;
  const base = {
    id: d.id,
    name: d.name,
    code: d.code,
    duration: d.duration as "once" | "forever" | "repeating",
    ...(d.duration === "repeating" ? { duration_in_months: d.durationInMonths ?? 1 } : {}),
  };
  if (d.type === "percentage")
    return { ...base, type: "percentage" as const, basis_points: d.basisPoints ?? 0 };
  const currency = d.currency ?? "usd";
  return {
    ...base,
    type: "fixed" as const,
    amount: d.amount ?? 0,
    currency,
    amounts: { ...(d.amounts ?? {}), [currency]: d.amount ?? 0 },
  };
}

function checkoutProduct(p: ProductOut) {
  const { attached_custom_fields: _fields, metadata: _metadata, ...rest } = p;
  return rest;
}

export function checkoutOut(view: CheckoutView): CheckoutOut {
  const { row } = view;
  const selected = view.products.find((p) => p.id === row.productId) ?? null;
  const price = selected?.prices.find((p) => p.id === row.productPriceId) ?? null;
  const { trial, paysNow, setup, formRequired } = cardUse(selected, row, view.discount);
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    custom_field_data: row.customFieldData,
    // Polar's clients accept only "stripe" here; the sandbox follows Stripe's confirmation-token flow.
    payment_processor: "stripe",
    status: row.status,
    client_secret: view.clientSecret,
    url: view.url,
    expires_at: row.expiresAt.toISOString(),
    success_url:
      row.successUrl ?? `${new URL(view.url).origin}/checkout/${view.clientSecret}/confirmation`,
    return_url: row.returnUrl,
    embed_origin: row.embedOrigin,
    amount: row.amount,
    seats: row.seats,
    min_seats: row.minSeats,
    max_seats: row.maxSeats,
    discount_amount: row.discountAmount,
    net_amount: row.netAmount,
    tax_amount: row.taxAmount,
    tax_behavior: row.taxAmount === null ? null : "exclusive",
    total_amount: row.totalAmount,
    currency: row.currency,
    allow_trial: row.allowTrial,
    active_trial_interval: trial?.interval ?? null,
    active_trial_interval_count: trial?.count ?? null,
    // Counted from the session's last change, as the trial would start if it were paid then.
    trial_end: trial
      ? addInterval(
          row.modifiedAt ?? row.createdAt,
          trial.interval as Interval,
          trial.count,
        ).toISOString()
      : null,
    organization_id: row.organizationId,
    product_id: row.productId,
    product_price_id: row.productPriceId,
    discount_id: row.discountId,
    allow_discount_codes: row.allowDiscountCodes,
    require_billing_address: row.requireBillingAddress,
    is_discount_applicable: row.amount > 0,
    // As Polar's: every price the checkout sells the product at (its currency, not archived).
    is_free_product_price:
      selected?.prices
        .filter((p) => !p.is_archived && p.price_currency === row.currency)
        .every(priceIsFree) ?? false,
    is_payment_required: paysNow,
    is_payment_setup_required: setup,
    is_payment_form_required: formRequired,
    customer_id: row.customerId,
    is_business_customer: row.isBusinessCustomer,
    customer_name: row.customerName,
    customer_email: row.customerEmail,
    customer_ip_address: row.customerIpAddress,
    customer_billing_name: row.customerBillingName,
    customer_billing_address: row.customerBillingAddress,
    customer_tax_id: row.customerTaxId,
    locale: null,
    payment_method_type: null,
    payment_processor_metadata: view.processorMetadata ?? {},
    billing_address_fields: billingAddressFields(row),
    trial_interval: row.trialInterval,
    trial_interval_count: row.trialIntervalCount,
    metadata: row.metadata,
    external_customer_id: row.externalCustomerId,
    customer_metadata: row.customerMetadata,
    products: view.products.map(checkoutProduct),
    product: selected ? checkoutProduct(selected) : null,
    product_price: price,
    prices: Object.fromEntries(view.products.map((p) => [p.id, p.prices])),
    discount: discountOut(view.discount),
    subscription_id: row.subscriptionId,
    attached_custom_fields: selected?.attached_custom_fields ?? [],
  };
}

/** The page's view: no seller metadata, plus the organization and, once paid, nothing secret. */
export function checkoutPublicOut(view: CheckoutPublicView): CheckoutPublicOut {
  const {
    metadata: _m,
    customer_metadata: _cm,
    external_customer_id: _e,
    subscription_id: _s,
    ...rest
  } = checkoutOut(view);
  const o = view.organization;
  return {
    ...rest,
    organization: {
      created_at: o.createdAt.toISOString(),
      modified_at: null,
      id: o.id,
      name: o.name,
      slug: o.slug,
      avatar_url: o.avatarUrl,
      proration_behavior: o.portal.prorationBehavior,
      allow_customer_updates: o.portal.allowCustomerUpdates,
    },
    customer_session_token: null,
  };
}
