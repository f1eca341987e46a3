// The API's response models, inferred from the server's schemas (shared/types.ts), and the few
// shapes the dashboard reads that have no schema there yet.
import type { BenefitType } from "../../../shared/types.ts";

export type {
  Benefit,
  BenefitType,
  Checkout,
  CheckoutLink,
  Customer,
  CustomerState,
  Discount,
  FileRead,
  LicenseKey,
  Meter,
  Order,
  Price,
  Product,
  Refund,
  Subscription,
  WebhookDelivery,
  WebhookEndpoint,
} from "../../../shared/types.ts";
export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "github_repository",
  "downloadables",
  "license_keys",
  "meter_credit",
] as const satisfies readonly BenefitType[];
export interface MeterQuantities {
  quantities: { timestamp: string; quantity: number }[];
  total: number;
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
