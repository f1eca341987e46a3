// Polar's access-token scopes (AvailableScope in the contract).
import { z } from "zod";

export const SCOPES = [
  "openid", "profile", "email", "user:read", "user:write",
  "organizations:read", "organizations:write", "custom_fields:read", "custom_fields:write",
  "discounts:read", "discounts:write", "checkout_links:read", "checkout_links:write",
  "checkouts:read", "checkouts:write", "transactions:read", "transactions:write",
  "payouts:read", "payouts:write", "products:read", "products:write",
  "benefits:read", "benefits:write", "events:read", "events:write",
  "meters:read", "meters:write", "files:read", "files:write",
  "subscriptions:read", "subscriptions:write", "customers:read", "customers:write",
  "members:read", "members:write", "wallets:read", "wallets:write",
  "disputes:read", "disputes:write", "customer_meters:read", "customer_sessions:write",
  "member_sessions:write", "customer_seats:read", "customer_seats:write",
  "orders:read", "orders:write", "refunds:read", "refunds:write", "payments:read",
  "metrics:read", "metrics:write", "webhooks:read", "webhooks:write",
  "license_keys:read", "license_keys:write", "customer_portal:read", "customer_portal:write",
  "notifications:read", "notifications:write", "notification_recipients:read", "notification_recipients:write",
] as const;

export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);

/** A `:write` scope implies its `:read` twin, as in Polar. */
export function grants(scopes: ReadonlySet<string>, needed: Scope): boolean {
  if (scopes.has(needed)) return true;
  return needed.endsWith(":read") && scopes.has(needed.replace(/:read$/, ":write"));
}
