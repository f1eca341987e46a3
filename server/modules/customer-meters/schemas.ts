// Wire schemas for Polar's seller-side CustomerMeter: a customer's balance on one meter.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { timestamped } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import { meterSchema, type MeterOut } from "../meters/schemas.ts";

export const CUSTOMER_METER_SORTS = [
  "created_at",
  "modified_at",
  "customer_id",
  "customer_name",
  "meter_id",
  "meter_name",
  "consumed_units",
  "credited_units",
  "balance",
] as const;
export type CustomerMeterSort = (typeof CUSTOMER_METER_SORTS)[number];

export const customerMeterListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string()).optional(),
  meter_id: queryList(z.uuid()).optional(),
  sorting: sortingSchema(CUSTOMER_METER_SORTS, ["-modified_at"]),
});
export type CustomerMeterListQuery = z.output<typeof customerMeterListQuery>;

export interface CustomerMeterParts {
  id: string;
  createdAt: Date;
  modifiedAt: Date | null;
  customerId: string;
  meterId: string;
  creditedUnits: number;
  consumed: number;
}

export const customerMeterSchema = z
  .object({
    ...timestamped,
    customer_id: z.uuid(),
    meter_id: z.uuid(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    customer: customerSchema,
    meter: meterSchema,
  })
  .meta({ id: "CustomerMeter" });
export type CustomerMeterOut = z.output<typeof customerMeterSchema>;

export function customerMeterOut(
  m: CustomerMeterParts,
  customer: CustomerOut,
  meter: MeterOut,
): CustomerMeterOut {
  return {
    id: m.id,
    created_at: m.createdAt.toISOString(),
    modified_at: m.modifiedAt?.toISOString() ?? null,
    customer_id: m.customerId,
    meter_id: m.meterId,
    consumed_units: m.consumed,
    credited_units: m.creditedUnits,
    balance: m.creditedUnits - m.consumed,
    customer,
    meter,
  };
}
