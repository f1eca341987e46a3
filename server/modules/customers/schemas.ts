// Wire schemas for Polar's Customer (individual), CustomerIndividualCreate, CustomerUpdate and
// CustomerState, and the serializer every endpoint and webhook uses.
import { createHash } from "node:crypto";
import { z } from "zod";
import { countrySchema, SUBDIVISIONS } from "../../lib/countries.ts";
import { metadataInput } from "../../lib/metadata.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { address, metadataOut, nullableTimestamp, timestamped } from "../../lib/wire.ts";
import type { customers } from "../../../db/schema/index.ts";

/** A customer row as stored. */
export type CustomerRow = typeof customers.$inferSelect;

// An address line longer than any real one is refused, not stored (and printed on invoices). As
// Polar's Address, text is trimmed and a blank one is null.
const nullableText = z
  .string()
  .trim()
  .max(500)
  .transform((v) => v || null)
  .nullish();
const INVALID_STATE: Record<string, string> = {
  US: "Value error, Invalid US state",
  CA: "Value error, Invalid CA subdivision",
};
/**
 * Polar's Address.validate_state: a US or CA state is sent as "NY" or "US-NY", kept as "US-NY", and
 * refused (the whole address, at its own location) when not on the list; elsewhere it is free text.
 */
export const addressInput = z
  .object({
    line1: nullableText,
    line2: nullableText,
    postal_code: nullableText,
    city: nullableText,
    state: nullableText,
    country: countrySchema,
  })
  .transform((a, ctx) => {
    const allowed = SUBDIVISIONS[a.country];
    if (!allowed || !a.state) return a;
    const state = a.state.startsWith(`${a.country}-`) ? a.state : `${a.country}-${a.state}`;
    if (allowed.has(state)) return { ...a, state };
    ctx.addIssue({ code: "custom", message: INVALID_STATE[a.country]! });
    return z.NEVER;
  });

// A string validated against the billing country, or an explicit [value, format] pair.
const taxIdInput = z.union([
  z.string().min(1).max(64),
  z.tuple([z.string().min(1).max(64), z.string()]),
]);
const email = z.email().max(320);
const name = z.string().max(256);
const locale = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be an IETF BCP 47 language tag");

export const customerCreate = z.object({
  email,
  external_id: z.string().min(1).max(256).nullish(),
  name: name.nullish(),
  billing_address: addressInput.nullish(),
  tax_id: taxIdInput.nullish(),
  locale: locale.nullish(),
  metadata: metadataInput.optional(),
  organization_id: z.uuid().nullish(),
  type: z
    .literal("individual", { message: "Only individual customers are supported." })
    .default("individual"),
  owner: z
    .object({
      email: z.email().optional(),
      name: z.string().nullish(),
      external_id: z.string().nullish(),
    })
    .nullish(),
});

export const customerUpdateByExternalId = z.object({
  email: email.nullish(),
  name: name.nullish(),
  billing_address: addressInput.nullish(),
  tax_id: taxIdInput.nullish(),
  locale: locale.nullish(),
  metadata: metadataInput.optional(),
});

export const customerUpdate = customerUpdateByExternalId.extend({
  external_id: z.string().min(1).max(256).nullish(),
  type: z.literal("individual", { message: "Only individual customers are supported." }).nullish(),
});

export type CustomerCreate = z.output<typeof customerCreate>;
export type CustomerUpdate = z.output<typeof customerUpdate>;

const orgFilter = z.union([z.uuid(), z.array(z.uuid())]).optional();
export const customerListQuery = z.object({
  organization_id: orgFilter,
  email: z.string().optional(),
  query: z.string().optional(),
  active: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
  sorting: sortingSchema(["created_at", "email", "name"] as const, ["-created_at"]),
});
export type CustomerListQuery = z.output<typeof customerListQuery>;

export const deleteQuery = z.object({
  anonymize: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .default(false),
});

export interface CustomerRecord extends CustomerRow {
  firstUserEventAt: Date | null;
}

export const customerSchema = z
  .object({
    ...timestamped,
    metadata: metadataOut,
    external_id: z.string().nullable(),
    email: z.string(),
    email_verified: z.boolean(),
    type: z.literal("individual"),
    name: z.string().nullable(),
    billing_name: z.string().nullable(),
    billing_address: address.nullable(),
    tax_id: z.tuple([z.string(), z.string()]).nullable(),
    locale: z.string().nullable(),
    organization_id: z.uuid(),
    default_payment_method_id: z.uuid().nullable(),
    deleted_at: nullableTimestamp,
    first_user_event_at: nullableTimestamp,
    avatar_url: z.string(),
  })
  .meta({ id: "Customer" });
export type CustomerOut = z.output<typeof customerSchema>;

export function customerOut(c: CustomerRecord): CustomerOut {
  return {
    id: c.id,
    created_at: c.createdAt.toISOString(),
    modified_at: c.modifiedAt?.toISOString() ?? null,
    metadata: c.metadata,
    external_id: c.externalId,
    email: c.email,
    email_verified: c.emailVerified,
    type: "individual" as const,
    name: c.name,
    billing_name: c.billingName ?? c.name,
    billing_address: c.billingAddress,
    tax_id: c.taxId,
    locale: c.locale,
    organization_id: c.organizationId,
    default_payment_method_id: null,
    deleted_at: c.deletedAt?.toISOString() ?? null,
    first_user_event_at: c.firstUserEventAt?.toISOString() ?? null,
    // Polar always sends a URL (its 0.4x client rejects null): Gravatar by SHA-256, 404 when unset.
    avatar_url: `https://www.gravatar.com/avatar/${createHash("sha256").update(c.email.trim().toLowerCase()).digest("hex")}?d=404`,
  };
}
