// The fixed values some flags and arguments take, shared by their --help text (built when the CLI
// starts, so this file stays free of zod) and the zod schemas that check them (loaded with the
// action). The CLI ships no server code, so each list of server values is tied to the server's
// types: `exactly` fails to compile when the server adds or drops a value.
import type { Benefit, Discount, Refund, Subscription } from "../../shared/types.ts";

/** `values` as a tuple holding every member of the union `T` and nothing else. */
function exactly<T extends string>() {
  return <const V extends readonly T[]>(
    values: V & ([Exclude<T, V[number]>] extends [never] ? unknown : never),
  ): V => values;
}

export const REFUND_REASONS = exactly<Refund["reason"]>()([
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "other",
]);

export const CANCELLATION_REASONS = exactly<
  NonNullable<Subscription["customer_cancellation_reason"]>
>()([
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
]);

export const SUBSCRIPTION_STATUSES = exactly<Subscription["status"]>()([
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
  "paused",
]);

// feature_flag and slack_shared_channel benefits are not created from the CLI.
export const BENEFIT_TYPES = exactly<
  Exclude<Benefit["type"], "feature_flag" | "slack_shared_channel">
>()(["custom", "license_keys", "downloadables", "meter_credit", "discord", "github_repository"]);

export const DISCOUNT_DURATIONS = exactly<Discount["duration"]>()(["once", "forever", "repeating"]);

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export const OPEN_TARGETS = ["dashboard", "checkout", "portal", "docs", "webhooks"] as const;

/** "must be one of a, b or c", for a zod enum's error. */
export function oneOf(values: readonly string[]): string {
  return `must be ${values.length > 1 ? `one of ${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : values[0]}`;
}
