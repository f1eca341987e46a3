// Wire schemas for Polar's CustomerSessionCustomerIDCreate / CustomerSessionCustomerExternalIDCreate
// and CustomerSession.
import { z } from "zod";
import { nullableTimestamp, timestamp } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import type { CustomerSessionRow } from "./repository.ts";

const common = {
  return_url: z
    .url({ protocol: /^https?$/ })
    .min(1)
    .max(2083)
    .nullish(),
  member_id: z.uuid().nullish(),
  external_member_id: z.string().nullish(),
};

export const customerSessionCreate = z.union([
  z.object({ ...common, customer_id: z.uuid() }),
  z.object({ ...common, external_customer_id: z.string().min(1) }),
]);
export type CustomerSessionCreate = z.output<typeof customerSessionCreate>;

export const customerSessionSchema = z
  .object({
    created_at: timestamp,
    modified_at: nullableTimestamp,
    id: z.uuid(),
    token: z.string(),
    expires_at: timestamp,
    return_url: z.string().nullable(),
    customer_portal_url: z.string(),
    customer_id: z.uuid(),
    customer: customerSchema,
  })
  .meta({ id: "CustomerSession" });
export type CustomerSessionOut = z.output<typeof customerSessionSchema>;

export function customerSessionOut(
  row: CustomerSessionRow,
  token: string,
  portalUrl: string,
  customer: CustomerOut,
): CustomerSessionOut {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    token,
    expires_at: row.expiresAt.toISOString(),
    return_url: row.returnUrl,
    customer_portal_url: portalUrl,
    customer_id: row.customerId,
    customer,
  };
}

/** What the portal learns of its own session. */
export const customerCustomerSessionSchema = z
  .object({ expires_at: timestamp, return_url: z.string().nullable() })
  .meta({ id: "CustomerCustomerSession" });
export type CustomerCustomerSessionOut = z.output<typeof customerCustomerSessionSchema>;
