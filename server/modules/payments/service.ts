// Changes to payments other modules make: checkout fulfilment saves the card a recurring purchase
// set up for off-session charges.
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { PaymentProcessor, SavedPaymentMethod } from "./processor.ts";
import {
  deletePaymentMethodsByProcessorId,
  insertPaymentMethod,
  recordStripeEvent,
  stripeEventSeen,
} from "./repository.ts";

/** Saves the method for the customer (default when it is the first); run inside the fulfilment. */
export async function saveCustomerPaymentMethod(
  db: Db,
  clock: Clock,
  input: {
    organizationId: string;
    customerId: string;
    processor: PaymentProcessor["name"];
    method: SavedPaymentMethod;
  },
): Promise<void> {
  const { method, processor } = input;
  if (processor === "none") return;
  await insertPaymentMethod(db, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    processor,
    processorPaymentMethodId: method.processorPaymentMethodId,
    processorCustomerId: method.processorCustomerId,
    type: method.type,
    brand: method.brand,
    last4: method.last4,
    expMonth: method.expMonth,
    expYear: method.expYear,
    createdAt: clock.now(),
  });
}

/** The processor removed the card (detached in Stripe): it is no longer charged for renewals. */
export async function forgetPaymentMethod(
  db: Db,
  clock: Clock,
  processorPaymentMethodId: string,
): Promise<number> {
  return deletePaymentMethodsByProcessorId(db, processorPaymentMethodId, clock.now());
}

/** Stripe event ids already handled: a repeated delivery is acknowledged and not applied again. */
export const stripeEvents = { seen: stripeEventSeen, record: recordStripeEvent };
