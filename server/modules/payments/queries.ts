// What other modules read of payments: a customer's saved payment methods (renewals charge the
// default one off-session; checkout reuses the processor's customer).
import type { Db } from "../../../db/client.ts";
import { listPaymentMethods, type PaymentMethodRow } from "./repository.ts";

export type PaymentMethodRecord = PaymentMethodRow;

/** The organization a read is scoped to (a tenant read never crosses it). */
export interface PaymentsScope {
  organizationId: string;
}

/** The customer's default live payment method, else the newest live one; null when none. */
export async function defaultPaymentMethod(
  db: Db,
  scope: PaymentsScope,
  customerId: string,
): Promise<PaymentMethodRecord | null> {
  const [first] = await listPaymentMethods(db, scope.organizationId, customerId);
  return first ?? null;
}

export async function customerPaymentMethods(
  db: Db,
  scope: PaymentsScope,
  customerId: string,
): Promise<PaymentMethodRecord[]> {
  return listPaymentMethods(db, scope.organizationId, customerId);
}

/** The processor's customer id (Stripe cus_...) the customer's saved methods belong to, if any. */
export async function processorCustomerId(
  db: Db,
  scope: PaymentsScope,
  customerId: string,
  processor: "sandbox" | "stripe",
): Promise<string | null> {
  const methods = await listPaymentMethods(db, scope.organizationId, customerId);
  return (
    methods.find((m) => m.processor === processor && m.processorCustomerId)?.processorCustomerId ??
    null
  );
}
