// The options of `till checkouts create`, `till checkout-links create` and `till subscriptions
// list|cancel|revoke` as zod schemas (see lib/flags.ts).
import { z } from "zod";
import { CANCELLATION_REASONS, oneOf, SUBSCRIPTION_STATUSES } from "../lib/choices.ts";
import { uuid } from "../lib/flags.ts";

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

export const checkoutCreateFlags = z.object({
  product: z.array(uuid).min(1),
  email: z.email({ error: "must be an email address" }).optional(),
  discount: uuid.optional(),
  successUrl: httpUrl.optional(),
  metadata: z.array(z.string()).optional(),
  open: z.boolean().optional(),
  org: z.string().optional(),
});

export const linkCreateFlags = z.object({
  product: z.array(uuid).min(1),
  label: z.string().optional(),
  successUrl: httpUrl.optional(),
  org: z.string().optional(),
});

export const subscriptionChangeFlags = z.object({
  reason: z.enum(CANCELLATION_REASONS, { error: oneOf(CANCELLATION_REASONS) }).optional(),
  comment: z.string().optional(),
});

/** The filters of `till subscriptions list` besides its ids (`--product`, `--customer`). */
export const subscriptionListFlags = {
  status: z
    .array(z.enum(SUBSCRIPTION_STATUSES, { error: oneOf(SUBSCRIPTION_STATUSES) }))
    .optional(),
};
