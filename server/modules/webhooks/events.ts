// The event types an endpoint can subscribe to: every WebhookEventType of the contract (which
// includes checkout.expired and the member/seat/discount events the list leaves out).
export const WEBHOOK_EVENT_TYPES = [
  "checkout.created",
  "checkout.updated",
  "checkout.expired",
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "customer.state_changed",
  "customer_seat.assigned",
  "customer_seat.claimed",
  "customer_seat.revoked",
  "member.created",
  "member.updated",
  "member.deleted",
  "order.created",
  "order.updated",
  "order.paid",
  "order.refunded",
  "subscription.created",
  "subscription.updated",
  "subscription.active",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.cycled",
  "subscription.revoked",
  "subscription.past_due",
  "subscription.paused",
  "subscription.resumed",
  "refund.created",
  "refund.updated",
  "product.created",
  "product.updated",
  "discount.created",
  "discount.updated",
  "discount.deleted",
  "benefit.created",
  "benefit.updated",
  "benefit_grant.created",
  "benefit_grant.cycled",
  "benefit_grant.updated",
  "benefit_grant.revoked",
  "organization.updated",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_FORMATS = ["raw", "discord", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The outbox payload: the body of a raw delivery. */
export interface EventPayload {
  type: string;
  timestamp: string;
  data: unknown;
}

/** The NOTIFY channel the outbox trigger announces "<organization_id>:<seq>" on. */
export const EVENTS_CHANNEL = "till_webhook_events";
