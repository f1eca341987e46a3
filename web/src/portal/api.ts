// The portal page's calls: /v1/customer-portal with the customer session token as bearer. Error
// answers become one readable message (the server's detail, or the first validation message).
import type { CustomerOrder } from "../../../shared/types.ts";
import { LOST_CONNECTION } from "../checkout/api.ts";
export interface Price {
  id: string;
  amount_type: string;
  price_amount?: number;
  price_currency?: string;
  is_archived?: boolean;
  /** A metered price's amount a unit, in minor units as a decimal string. */
  unit_amount?: string;
  meter?: { name: string } | null;
}
export type ProrationBehavior = "invoice" | "prorate" | "next_period" | "reset";
export interface Product {
  id: string;
  name: string;
  organization: {
    name: string;
    slug?: string;
    avatar_url: string | null;
    proration_behavior?: ProrationBehavior;
    customer_portal_settings?: {
      usage: { show: boolean };
      subscription?: { pause?: boolean; update_plan?: boolean };
    };
  };
}
/** Polar's CustomerProduct, as the organization's portal lists what it sells. */
export interface PlanProduct {
  id: string;
  name: string;
  is_recurring: boolean;
  is_archived: boolean;
  recurring_interval: string | null;
  recurring_interval_count?: number | null;
  prices: Price[];
}
/** A billing address as the API answers it (Polar's Address). */
export type Address = NonNullable<CustomerOrder["billing_address"]>;
export interface Subscription {
  id: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  /** Billed every this many intervals (3 with "month": quarterly). */
  recurring_interval_count?: number | null;
  current_period_end: string;
  cancel_at_period_end: boolean;
  ends_at: string | null;
  ended_at?: string | null;
  trial_end?: string | null;
  /** A change applied at the renewal (next_period): another plan, or other seats. */
  pending_update?: { applies_at: string; product_id: string | null; seats: number | null } | null;
  pause_at_period_end: boolean;
  resumes_at: string | null;
  customer_cancellation_reason: string | null;
  product: Product;
  /** The prices it bills each period: fixed ones make `amount`, metered ones bill usage on top. */
  prices: Price[];
  /** The current period's usage of each metered price (Polar's SubscriptionMeter). */
  meters: SubscriptionMeter[];
  /** What it costs beyond `amount` (till's own; null for a seat holder, who does not pay). */
  pricing?: Pricing | null;
}
export interface Pricing {
  /** Its prices a period before any discount, usage left out. */
  amount_before_discount: number;
  discount: {
    name: string;
    type: "fixed" | "percentage";
    amount: number | null;
    basis_points: number | null;
    duration: "once" | "forever" | "repeating";
    duration_in_months: number | null;
  } | null;
  /** What the next renewal bills before usage and tax; null when none follows or a plan change makes it. */
  next_amount: number | null;
}
export interface SubscriptionMeter {
  id: string;
  consumed_units: number;
  credited_units: number;
  amount: number;
  meter: { id: string; name: string };
}
export interface Order {
  id: string;
  created_at: string;
  status: string;
  subscription_id?: string | null;
  /** A failed renewal's next automatic attempt. */
  next_payment_attempt_at?: string | null;
  total_amount: number;
  currency: string;
  description: string;
  invoice_number: string | null;
  billing_reason?: string;
  billing_name?: string | null;
  billing_address?: Address | null;
  is_invoice_generated?: boolean;
}
export interface Customer {
  id: string;
  email: string | null;
  name: string | null;
  default_payment_method_id?: string | null;
}
export interface BenefitGrant {
  id: string;
  benefit_id: string;
  benefit: { description: string; type: string };
  properties?: { license_key?: { key?: string; display_key?: string } };
}
export interface LicenseKey {
  id: string;
  key: string;
  display_key: string;
  benefit_id: string;
  status: string;
  expires_at: string | null;
}
export interface Downloadable {
  id: string;
  file: { name: string; size_readable: string; download: { url: string } };
}
export interface CustomerMeter {
  id: string;
  meter_id: string;
  consumed_units: number;
  credited_units: number;
  balance: number;
  meter: { name: string };
}
export interface Wallet {
  id: string;
  balance: number;
  currency: string;
}
export interface PaymentMethod {
  id: string;
  method_metadata: {
    brand: string | null;
    last4: string | null;
    exp_month: number;
    exp_year: number;
  };
}

export type PaymentMethodAdded =
  | { status: "succeeded"; payment_method: PaymentMethod }
  | { status: "requires_action"; client_secret: string };

export interface SessionInfo {
  expires_at: string;
  return_url: string | null;
}
interface Page<T> {
  items: T[];
}

export class PortalApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function portalApi(token: string) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`/v1/customer-portal/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      // The browser's own words ("Failed to fetch") tell the buyer nothing.
      throw new PortalApiError(0, LOST_CONNECTION);
    }
    const data = (await res.json().catch(() => null)) as { detail?: unknown } | null;
    if (res.ok) return data as T;
    if (res.status === 401)
      throw new PortalApiError(401, "This link has expired. Open the portal again from the store.");
    const detail = data?.detail;
    const message =
      typeof detail === "string"
        ? detail
        : Array.isArray(detail)
          ? String((detail[0] as { msg?: string })?.msg ?? "Invalid input.")
          : "Something went wrong. Try again.";
    throw new PortalApiError(res.status, message);
  }
  const all = <T>(path: string) => call<Page<T>>("GET", `${path}?limit=100`).then((p) => p.items);
  return {
    me: () => call<Customer>("GET", "customers/me"),
    session: () => call<SessionInfo>("GET", "customer-session/introspect"),
    subscriptions: () => all<Subscription>("subscriptions/"),
    orders: () => all<Order>("orders/"),
    /** A signed link to the paid order's receipt PDF, made on first request. */
    receipt: (id: string) => call<{ url: string }>("GET", `orders/${id}/receipt`),
    /** The order's invoice PDF link; 404 until it is generated. */
    invoice: (id: string) => call<{ url: string }>("GET", `orders/${id}/invoice`),
    generateInvoice: (id: string) => call<unknown>("POST", `orders/${id}/invoice`),
    /** Billing name and address the invoice is made out to, before it is generated. */
    updateOrderBilling: (
      id: string,
      body: {
        billing_name: string;
        billing_address: Address;
      },
    ) => call<Order>("PATCH", `orders/${id}`, body),
    /** The seller's public recurring products a subscription may move to. */
    plans: (slug: string) =>
      call<{ products: PlanProduct[] }>("GET", `organizations/${encodeURIComponent(slug)}`).then(
        (o) => o.products,
      ),
    changePlan: (id: string, productId: string) =>
      call<Subscription>("PATCH", `subscriptions/${id}`, { product_id: productId }),
    benefitGrants: () => all<BenefitGrant>("benefit-grants/"),
    licenseKeys: () => all<LicenseKey>("license-keys/"),
    downloadables: () => all<Downloadable>("downloadables/"),
    meters: () => all<CustomerMeter>("meters/"),
    wallets: () => all<Wallet>("wallets/"),
    cancel: (id: string, reason: string, comment: string) =>
      call<Subscription>("PATCH", `subscriptions/${id}`, {
        cancel_at_period_end: true,
        cancellation_reason: reason,
        cancellation_comment: comment || null,
      }),
    uncancel: (id: string) =>
      call<Subscription>("PATCH", `subscriptions/${id}`, { cancel_at_period_end: false }),
    /** Pause at period end (true) or take a scheduled pause back (false). */
    pauseAtPeriodEnd: (id: string, pause: boolean) =>
      call<Subscription>("PATCH", `subscriptions/${id}`, { pause_at_period_end: pause }),
    resume: (id: string) => call<Subscription>("PATCH", `subscriptions/${id}`, { resume: true }),
    paymentMethods: () => all<PaymentMethod>("customers/me/payment-methods"),
    /** After the bank's challenge (3-D Secure), the card of the SetupIntent is stored. */
    confirmPaymentMethod: (setupIntentId: string) =>
      call<PaymentMethodAdded>("POST", "customers/me/payment-methods/confirm", {
        setup_intent_id: setupIntentId,
        set_default: true,
      }),
    /** Refused (400) for the last card while a subscription still needs one to be billed. */
    removePaymentMethod: (id: string) => call<null>("DELETE", `customers/me/payment-methods/${id}`),
    /** Saves a card as the default; the server retries any payment due with it at once. */
    addPaymentMethod: (confirmationTokenId: string) =>
      call<PaymentMethodAdded>("POST", "customers/me/payment-methods", {
        confirmation_token_id: confirmationTokenId,
        set_default: true,
        return_url: window.location.href.split("?")[0],
      }),
  };
}
export type PortalApi = ReturnType<typeof portalApi>;

/** How this server takes a card outside a checkout: the sandbox's form, or Stripe's element. */
export interface CardSettings {
  sandbox: boolean;
  stripe: { publishable_key: string; stripe_js_url: string } | null;
}

export async function cardSettings(): Promise<CardSettings> {
  const res = await fetch("/api/auth-providers").catch(() => null);
  if (!res?.ok) return { sandbox: false, stripe: null };
  const info = (await res.json()) as Partial<CardSettings>;
  return { sandbox: info.sandbox === true, stripe: info.stripe ?? null };
}
