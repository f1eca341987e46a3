// The parts of Polar's CheckoutPublic that the page reads.

export interface Price {
  id: string;
  amount_type: "fixed" | "custom" | "free" | "metered_unit" | "seat_based";
  price_amount?: number;
  price_currency?: string;
  minimum_amount?: number | null;
  maximum_amount?: number | null;
  preset_amount?: number | null;
  unit_amount?: string;
  cap_amount?: number | null;
  meter?: { id: string; name: string } | null;
  is_archived?: boolean;
  seat_tiers?: { minimum_seats: number; maximum_seats: number | null };
}

export interface Product {
  id: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  recurring_interval: "day" | "week" | "month" | "year" | null;
  is_archived?: boolean;
  prices?: Price[];
  benefits: { id: string; description: string }[];
}

export interface CustomField {
  id: string;
  slug: string;
  name: string;
  type: "text" | "number" | "date" | "checkbox" | "select";
  properties: {
    form_label?: string | null;
    form_help_text?: string | null;
    form_placeholder?: string | null;
    textarea?: boolean;
    min_length?: number | null;
    max_length?: number | null;
    ge?: number | null;
    le?: number | null;
    options?: { value: string; label: string }[];
  };
}

export interface Address {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

export interface Checkout {
  id: string;
  status: "open" | "expired" | "confirmed" | "succeeded" | "failed";
  client_secret: string;
  expires_at: string;
  success_url: string;
  embed_origin: string | null;
  amount: number;
  /** When the session last changed: an answer older than the one shown is stale. */
  modified_at?: string | null;
  /** A seat-based price's seats, and the session's own bounds on them. */
  seats?: number | null;
  min_seats?: number | null;
  max_seats?: number | null;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  total_amount: number;
  currency: string;
  allow_discount_codes: boolean;
  is_payment_required: boolean;
  is_payment_form_required: boolean;
  customer_email: string | null;
  customer_name: string | null;
  customer_billing_address: Address | null;
  /** With is_payment_form_required, what decides the billing address fields (state.ts). */
  require_billing_address: boolean;
  is_business_customer: boolean;
  customer_billing_name: string | null;
  customer_tax_id: string | null;
  product: Product;
  /** Null from the server when the seller replaced the price since the session opened: such a
   * session is never shown (state.ts, withdrawn). */
  product_price: Price;
  discount: { id: string; name: string; code: string | null } | null;
  organization: { name: string; avatar_url: string | null };
  attached_custom_fields: {
    custom_field_id: string;
    custom_field: CustomField;
    required: boolean;
    order: number;
  }[];
  custom_field_data: Record<string, string | number | boolean | null>;
  /** The product's trial a purchase starts with: nothing is paid now, a card is set up. */
  active_trial_interval?: "day" | "week" | "month" | "year" | null;
  active_trial_interval_count?: number | null;
  trial_end?: string | null;
  /** Stripe's publishable key and Stripe.js URL; on a confirm's answer, 3-D Secure's next action. */
  payment_processor_metadata?: Record<string, unknown>;
  /** Set on the answer to confirm: the buyer's customer session, for the confirmation page. */
  customer_session_token?: string | null;
}
