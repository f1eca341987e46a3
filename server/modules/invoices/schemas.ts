// Wire schemas for Polar's OrderUpdate / CustomerOrderUpdate (billing details before the invoice)
// and OrderInvoice / OrderReceipt (a signed link to the PDF).
import { z } from "zod";
import { addressInput } from "../customers/schemas.ts";

export const orderBillingUpdate = z
  .object({
    billing_name: z.string().min(1).max(256).nullish(),
    billing_address: addressInput.nullish(),
  })
  .strict();
export type OrderBillingUpdate = z.output<typeof orderBillingUpdate>;

export const orderInvoiceSchema = z.object({ url: z.string() }).meta({ id: "OrderInvoice" });
export const orderReceiptSchema = z.object({ url: z.string() }).meta({ id: "OrderReceipt" });
export type DocumentLinkOut = z.output<typeof orderInvoiceSchema>;
