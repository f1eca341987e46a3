// The response models of till's API as TypeScript types, inferred from the server's zod schemas,
// for the dashboard (web/) and the CLI (cli/). Type-only: nothing here exists at runtime, so neither
// bundle pulls in server code.
export type { BenefitOut as Benefit, BenefitType } from "../server/modules/benefits/schemas.ts";
export type { CheckoutLinkOut as CheckoutLink } from "../server/modules/checkout-links/schemas.ts";
export type { CheckoutOut as Checkout } from "../server/modules/checkouts/schemas.ts";
export type { CustomerStateOut as CustomerState } from "../server/modules/customer-portal/schemas.ts";
export type { CustomerOut as Customer } from "../server/modules/customers/schemas.ts";
export type { DiscountOut as Discount } from "../server/modules/discounts/schemas.ts";
export type { EventOut as Event } from "../server/modules/events/schemas.ts";
export type { FileReadOut as FileRead } from "../server/modules/files/schemas.ts";
export type { LicenseKeyOut as LicenseKey } from "../server/modules/license-keys/schemas.ts";
export type { MeterOut as Meter } from "../server/modules/meters/schemas.ts";
export type { OrderOut as Order } from "../server/modules/orders/schemas.ts";
export type { PriceOut as Price } from "../server/modules/products/prices.ts";
export type { ProductOut as Product } from "../server/modules/products/schemas.ts";
export type { RefundOut as Refund } from "../server/modules/refunds/schemas.ts";
export type { SubscriptionOut as Subscription } from "../server/modules/subscriptions/schemas.ts";
export type {
  DeliveryOut as WebhookDelivery,
  EndpointOut as WebhookEndpoint,
} from "../server/modules/webhooks/schemas.ts";
export type { Page } from "../server/lib/pagination.ts";
