// The options of `till refunds create`, `till license-keys update` and `till webhooks endpoints
// create`, and the argument of `till license-keys validate`, as zod schemas (see lib/flags.ts).
import { z } from "zod";
import { oneOf, REFUND_REASONS } from "../lib/choices.ts";
import { minorUnits, nonEmptyText, positiveInteger, uuid } from "../lib/flags.ts";

export const refundCreateFlags = z.object({
  order: uuid,
  amount: minorUnits,
  reason: z.enum(REFUND_REASONS, { error: oneOf(REFUND_REASONS) }),
  comment: z.string().optional(),
  revokeBenefits: z.boolean().optional(),
});

export const licenseKeyUpdateFlags = z.object({
  status: z
    .enum(["granted", "disabled", "revoked"], { error: oneOf(["granted", "disabled", "revoked"]) })
    .optional(),
  limitUsage: positiveInteger.optional(),
  limitActivations: positiveInteger.optional(),
});

export const endpointCreateFlags = z.object({
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  event: z.array(z.string().regex(/^[a-z_]+\.[a-z_.]+$/, "must be an event type, e.g. order.paid")),
  name: z.string().optional(),
  format: z.enum(["raw", "discord", "slack"], { error: oneOf(["raw", "discord", "slack"]) }),
  org: z.string().optional(),
});

// A license key is the customer's text, not an id: only what the server would refuse is refused.
export const licenseKeyValidateArgs = z.object({
  key: nonEmptyText.max(500, { error: "must be at most 500 characters" }),
});
