// The response models of till's API as TypeScript types, inferred from the server's zod schemas,
// for the dashboard (web/) and the CLI (cli/). Type-only: nothing here exists at runtime, so neither
// bundle pulls in server code.
export type { BenefitOut as Benefit, BenefitType } from "../server/modules/benefits/schemas.ts";
export type { CheckoutLinkOut as CheckoutLink } from "../server/modules/checkout-links/schemas.ts";
export type {
  CheckoutOut as Checkout,
  CheckoutPublicOut as CheckoutPublic,
} from "../server/modules/checkouts/schemas.ts";
export type { CustomerMeterOut as CustomerMeter } from "../server/modules/customer-meters/schemas.ts";
export type {
  CustomerGrantOut as CustomerBenefitGrant,
  CustomerStateOut as CustomerState,
  PortalOrderOut as CustomerOrder,
  PortalSubscriptionOut as CustomerSubscription,
} from "../server/modules/customer-portal/schemas.ts";
export type { CustomerSessionOut as CustomerSession } from "../server/modules/customer-sessions/schemas.ts";
export type { CustomerOut as Customer } from "../server/modules/customers/schemas.ts";
export type { DiscountOut as Discount } from "../server/modules/discounts/schemas.ts";
export type { DisputeOut as Dispute } from "../server/modules/disputes/schemas.ts";
export type { EventTypeWithStatsOut as EventType } from "../server/modules/event-types/schemas.ts";
export type { EventOut as Event } from "../server/modules/events/schemas.ts";
export type { FileReadOut as FileRead } from "../server/modules/files/schemas.ts";
export type { DownloadableOut as Downloadable } from "../server/modules/grants/schemas.ts";
export type { LicenseKeyOut as LicenseKey } from "../server/modules/license-keys/schemas.ts";
export type { MemberOut as Member } from "../server/modules/members/schemas.ts";
export type { MeterOut as Meter } from "../server/modules/meters/schemas.ts";
export type { MetricsResponseOut as Metrics } from "../server/modules/metrics/schemas.ts";
export type { OrderOut as Order } from "../server/modules/orders/schemas.ts";
export type { OrganizationOut as Organization } from "../server/modules/organizations/schemas.ts";
export type {
  PaymentMethodOut as PaymentMethod,
  PaymentOut as Payment,
} from "../server/modules/payments/schemas.ts";
export type { PriceOut as Price } from "../server/modules/products/prices.ts";
export type { ProductOut as Product } from "../server/modules/products/schemas.ts";
export type { RefundOut as Refund } from "../server/modules/refunds/schemas.ts";
export type { SeatOut as CustomerSeat } from "../server/modules/seats/schemas.ts";
export type { SubscriptionOut as Subscription } from "../server/modules/subscriptions/schemas.ts";
export type {
  DeliveryOut as WebhookDelivery,
  EndpointOut as WebhookEndpoint,
} from "../server/modules/webhooks/schemas.ts";
export type { Page } from "../server/lib/pagination.ts";
