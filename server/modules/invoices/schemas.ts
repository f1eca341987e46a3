// Wire schemas for Polar's OrderUpdate / CustomerOrderUpdate (billing details before the invoice).
import { z } from "zod";
import { addressInput } from "../customers/schemas.ts";

export const orderBillingUpdate = z
  .object({
    billing_name: z.string().min(1).max(256).nullish(),
    billing_address: addressInput.nullish(),
  })
  .strict();
export type OrderBillingUpdate = z.output<typeof orderBillingUpdate>;
