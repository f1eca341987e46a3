// The parts of Polar's v1 resources the dashboard shows (the wire has more; see the contract).
export interface Price {
  id: string;
  amount_type: "fixed" | "custom" | "free" | "seat_based" | "metered_unit";
  price_amount?: number;
  price_currency: string;
  is_archived: boolean;
}
export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "github_repository",
  "downloadables",
  "license_keys",
  "meter_credit",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];
export interface Benefit {
  id: string;
  created_at: string;
  type: BenefitType;
  description: string;
  properties: Record<string, unknown>;
}
export interface FileRead {
  id: string;
  name: string;
  service: string;
  is_uploaded: boolean;
  size_readable: string;
  created_at: string;
}
export interface Product {
  id: string;
  created_at: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  is_archived: boolean;
  recurring_interval: string | null;
  prices: Price[];
  benefits: Benefit[];
}
export interface Discount {
  id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  amount?: number;
  currency?: string;
  basis_points?: number;
  duration: string;
  redemptions_count: number;
  max_redemptions: number | null;
  created_at: string;
}
export interface Meter {
  id: string;
  name: string;
  created_at: string;
  filter: unknown;
  aggregation: { func: string; property?: string | null };
  archived_at: string | null;
}
export interface MeterQuantities {
  quantities: { timestamp: string; quantity: number }[];
  total: number;
}
export interface Customer {
  id: string;
  email: string;
  name: string | null;
  external_id: string | null;
  created_at: string;
}
export interface CustomerState extends Customer {
  active_subscriptions: {
    id: string;
    status: string;
    amount: number;
    currency: string;
    product_id: string;
    current_period_end: string | null;
  }[];
  granted_benefits: { id: string; benefit_id: string; benefit_type: string }[];
  active_meters: {
    id: string;
    meter_id: string;
    consumed_units: number;
    credited_units: number;
    balance: number;
  }[];
}
export interface Checkout {
  id: string;
  created_at: string;
  status: string;
  url: string;
  total_amount: number;
  currency: string;
  customer_email: string | null;
  product: { name: string } | null;
  expires_at: string;
}
export interface CheckoutLink {
  id: string;
  created_at: string;
  url: string;
  label: string | null;
  products: { id: string; name: string }[];
}
export interface Order {
  id: string;
  created_at: string;
  status: string;
  total_amount: number;
  refunded_amount: number;
  refundable_amount?: number;
  currency: string;
  billing_reason: string;
  customer: { email: string };
  product: { name: string } | null;
  description: string;
}
export interface Subscription {
  id: string;
  created_at: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  cancel_at_period_end: boolean;
  current_period_end: string;
  customer: { email: string };
  product: { name: string };
}
export interface Refund {
  id: string;
  created_at: string;
  status: string;
  reason: string;
  amount: number;
  currency: string;
  order_id: string;
}
export interface LicenseKey {
  id: string;
  created_at: string;
  display_key: string;
  status: string;
  usage: number;
  limit_usage: number | null;
  validations: number;
  customer: { email: string };
  expires_at: string | null;
}
export interface WebhookEndpoint {
  id: string;
  created_at: string;
  url: string;
  name: string | null;
  format: string;
  secret: string;
  events: string[];
  enabled: boolean;
}
export interface WebhookDelivery {
  id: string;
  created_at: string;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  webhook_event: {
    id: string;
    created_at: string;
    type: string;
    payload: string | null;
    succeeded: boolean | null;
    is_archived: boolean;
  };
}
export interface AccessToken {
  id: string;
  created_at: string;
  comment: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
}
export interface OutboxMail {
  id: string;
  created_at: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  link: string | null;
  sent_at: string | null;
  error: string | null;
}
