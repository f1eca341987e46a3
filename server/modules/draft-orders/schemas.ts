// Wire schemas for Polar's OrderCreate (a draft order for an off-session charge) and OrderFinalize.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";

export const orderCreate = z.object({
  organization_id: z.uuid().nullish(),
  customer_id: z.uuid(),
  product_id: z.uuid(),
  currency: z
    .string()
    .regex(/^[a-z]{3}$/, "must be a lowercase ISO 4217 code")
    .nullish(),
  amount: z.number().int().min(0).nullish(),
  description: z.string().max(500).nullish(),
  metadata: metadataInput.optional(),
  custom_field_data: z
    .record(
      z.string().min(1).max(100),
      z.union([z.string().max(5000), z.number(), z.boolean(), z.null()]),
    )
    .optional(),
});
export type OrderCreate = z.output<typeof orderCreate>;

export const orderFinalize = z.object({ payment_method_id: z.uuid().nullish() });
export type OrderFinalize = z.output<typeof orderFinalize>;
