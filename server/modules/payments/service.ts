// Changes to payments other modules make: checkout fulfilment saves the card a recurring purchase
// set up for off-session charges.
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { SavedPaymentMethod } from "./processor.ts";
import { insertPaymentMethod } from "./repository.ts";

/** Saves the method for the customer (default when it is the first); run inside the fulfilment. */
export async function saveCustomerPaymentMethod(
  db: Db,
  clock: Clock,
  input: {
    organizationId: string;
    customerId: string;
    processor: "sandbox" | "stripe";
    method: SavedPaymentMethod;
  },
): Promise<void> {
  const { method } = input;
  await insertPaymentMethod(db, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    processor: input.processor,
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
