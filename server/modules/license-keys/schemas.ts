// Wire schemas for Polar's license keys: LicenseKeyRead / WithActivations / ValidatedLicenseKey,
// activations, the validate/activate/deactivate bodies and the seller's update.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryList } from "../../lib/query.ts";
import { nullableTimestamp, timestamp, timestamped, timestampInput } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import type { ActivationRow, LicenseKeyRow } from "./repository.ts";

export const LICENSE_KEY_STATUSES = ["granted", "revoked", "disabled"] as const;

export const licenseKeyListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  benefit_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(LICENSE_KEY_STATUSES)).optional(),
});

const INT32_MAX = 2147483647;
export const licenseKeyUpdate = z.object({
  status: z.enum(LICENSE_KEY_STATUSES).nullish(),
  usage: z.number().int().min(0).max(INT32_MAX).optional(),
  limit_activations: z.number().int().min(1).max(50).nullish(),
  limit_usage: z.number().int().min(1).max(INT32_MAX).nullish(),
  expires_at: timestampInput.nullish(),
});
export type LicenseKeyUpdate = z.output<typeof licenseKeyUpdate>;

const conditions = metadataInput.optional();
export const licenseKeyValidate = z.object({
  key: z.string().min(1).max(500),
  organization_id: z.uuid(),
  activation_id: z.uuid().nullish(),
  benefit_id: z.uuid().nullish(),
  customer_id: z.uuid().nullish(),
  increment_usage: z.number().int().min(1).max(INT32_MAX).nullish(),
  conditions,
});
export type LicenseKeyValidate = z.output<typeof licenseKeyValidate>;

export const licenseKeyActivate = z.object({
  key: z.string().min(1).max(500),
  organization_id: z.uuid(),
  label: z.string().min(1).max(250),
  conditions,
  meta: metadataInput.optional(),
});
export type LicenseKeyActivate = z.output<typeof licenseKeyActivate>;

export const licenseKeyDeactivate = z.object({
  key: z.string().min(1).max(500),
  organization_id: z.uuid(),
  activation_id: z.uuid(),
});
export type LicenseKeyDeactivate = z.output<typeof licenseKeyDeactivate>;

export function displayKey(key: string): string {
  return `****-${key.slice(-6)}`;
}

export const licenseKeySchema = z
  .object({
    ...timestamped,
    organization_id: z.uuid(),
    customer_id: z.uuid(),
    customer: customerSchema,
    benefit_id: z.uuid(),
    key: z.string(),
    display_key: z.string(),
    status: z.enum(LICENSE_KEY_STATUSES),
    limit_activations: z.number().int().nullable(),
    usage: z.number().int(),
    limit_usage: z.number().int().nullable(),
    validations: z.number().int(),
    last_validated_at: nullableTimestamp,
    expires_at: nullableTimestamp,
  })
  .meta({ id: "LicenseKeyRead" });
export type LicenseKeyOut = z.output<typeof licenseKeySchema>;

export const activationSchema = z
  .object({
    id: z.uuid(),
    license_key_id: z.uuid(),
    label: z.string(),
    meta: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    modified_at: nullableTimestamp,
  })
  .meta({ id: "LicenseKeyActivationBase" });
export type ActivationOut = z.output<typeof activationSchema>;

export const licenseKeyWithActivationsSchema = z
  .object({ ...licenseKeySchema.shape, activations: z.array(activationSchema) })
  .meta({ id: "LicenseKeyWithActivations" });

export const validatedLicenseKeySchema = z
  .object({ ...licenseKeySchema.shape, activation: activationSchema.nullable() })
  .meta({ id: "ValidatedLicenseKey" });
export type ValidatedLicenseKeyOut = z.output<typeof validatedLicenseKeySchema>;

export const activationReadSchema = z
  .object({ ...activationSchema.shape, license_key: licenseKeySchema })
  .meta({ id: "LicenseKeyActivationRead" });
export type ActivationReadOut = z.output<typeof activationReadSchema>;

export function licenseKeyOut(row: LicenseKeyRow, customer: CustomerOut): LicenseKeyOut {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    organization_id: row.organizationId,
    customer_id: row.customerId,
    customer,
    benefit_id: row.benefitId,
    key: row.key,
    display_key: displayKey(row.key),
    status: row.status as (typeof LICENSE_KEY_STATUSES)[number],
    limit_activations: row.limitActivations,
    usage: row.usage,
    limit_usage: row.limitUsage,
    validations: row.validations,
    last_validated_at: row.lastValidatedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}

export function activationBaseOut(a: ActivationRow): ActivationOut {
  return {
    id: a.id,
    license_key_id: a.licenseKeyId,
    label: a.label,
    meta: a.meta,
    created_at: a.createdAt.toISOString(),
    modified_at: a.modifiedAt?.toISOString() ?? null,
  };
}
