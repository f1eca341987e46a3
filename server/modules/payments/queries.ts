// What other modules read of payments: a customer's saved payment methods (renewals charge the
// default one off-session; checkout reuses the processor's customer).
import type { Db } from "../../../db/client.ts";
import type { PaymentProcessor } from "./processor.ts";
import {
  listPaymentMethods,
  listPaymentMethodsOfCustomers,
  listPayments as listPaymentRows,
  succeededPaymentForProcessor,
  type PaymentMethodRow,
  type PaymentRow,
} from "./repository.ts";
import type { OrgScope } from "../../lib/org-scope.ts";

export type PaymentMethodRecord = PaymentMethodRow;
export type PaymentRecord = PaymentRow;

/** The succeeded payment behind a processor's payment id (any organization: processor ids are global). */
export const paymentForProcessor = succeededPaymentForProcessor;

/** The customer's default live payment method, else the newest live one; null when none. */
export async function defaultPaymentMethod(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<PaymentMethodRecord | null> {
  const [first] = await listPaymentMethods(db, scope, customerId);
  return first ?? null;
}

/** defaultPaymentMethod of many customers at once (one read for a batch of renewals). */
export async function defaultPaymentMethods(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
): Promise<Map<string, PaymentMethodRecord>> {
  const rows = await listPaymentMethodsOfCustomers(db, scope, customerIds);
  const first = new Map<string, PaymentMethodRecord>();
  for (const row of rows) if (!first.has(row.customerId)) first.set(row.customerId, row);
  return first;
}

export async function customerPaymentMethods(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<PaymentMethodRecord[]> {
  return listPaymentMethods(db, scope, customerId);
}

/** The processor's customer id (Stripe cus_...) the customer's saved methods belong to, if any. */
export async function processorCustomerId(
  db: Db,
  scope: OrgScope,
  customerId: string,
  processor: PaymentProcessor["name"],
): Promise<string | null> {
  const methods = await listPaymentMethods(db, scope, customerId);
  return (
    methods.find((m) => m.processor === processor && m.processorCustomerId)?.processorCustomerId ??
    null
  );
}

/** The newest payment attempt for an order (a renewal's charges), or null. */
export async function lastPaymentOfOrder(db: Db, scope: OrgScope, orderId: string) {
  const { rows } = await listPaymentRows(
    db,
    { scope, orderIds: [orderId] },
    [{ key: "created_at", desc: true }],
    1,
    0,
  );
  return rows[0] ?? null;
}
