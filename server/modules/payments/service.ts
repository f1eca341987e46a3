// Payments: the list and reads of Polar's payments API, and the changes other modules make (checkout
// fulfilment saves the card a recurring purchase set up, and records every attempt).
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { PaymentProcessor, SavedPaymentMethod } from "./processor.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { ApiError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { paymentOut, type PaymentListQuery } from "./schemas.ts";
import {
  deleteCustomerMethod,
  deletePaymentMethodsByProcessorId,
  findPayment,
  listPayments as listPaymentRows,
  insertPayments,
  insertPaymentMethod,
  listPaymentMethods,
  makeDefaultMethod,
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
    fingerprint: method.fingerprint ?? null,
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

export interface PaymentAttemptRecord {
  organizationId: string;
  customerId: string | null;
  checkoutId: string | null;
  orderId: string | null;
  /** The processor request's idempotency key: an attempt is recorded once. */
  idempotencyKey: string;
  processor: PaymentProcessor["name"];
  processorPaymentId: string | null;
  status: "succeeded" | "failed";
  amount: number;
  currency: string;
  card: { brand: string; last4: string } | null;
  trigger:
    | "purchase"
    | "subscription_cycle"
    | "retry_dunning"
    | "retry_customer"
    | "retry_payment_method_update"
    | "retry_admin";
  decline: { reason: string; message: string } | null;
  /** When the attempt was made, if not the clock's now (a batch of renewals of different times). */
  at?: Date;
}

/** Records a payment attempt; call it in the transaction that applies its outcome. */
export async function recordPayment(
  db: Db,
  clock: Clock,
  attempt: PaymentAttemptRecord,
): Promise<void> {
  await recordPayments(db, clock, [attempt]);
}

/** Records many attempts in one statement (a batch of renewals); each once per idempotency key. */
export async function recordPayments(
  db: Db,
  clock: Clock,
  attempts: PaymentAttemptRecord[],
): Promise<void> {
  await insertPayments(
    db,
    attempts.map((attempt) => ({
      organizationId: attempt.organizationId,
      customerId: attempt.customerId,
      checkoutId: attempt.checkoutId,
      orderId: attempt.orderId,
      idempotencyKey: attempt.idempotencyKey,
      processor: attempt.processor,
      processorPaymentId: attempt.processorPaymentId,
      status: attempt.status,
      amount: attempt.amount,
      currency: attempt.currency,
      method: "card",
      brand: attempt.card?.brand ?? null,
      last4: attempt.card?.last4 ?? null,
      trigger: attempt.trigger,
      declineReason: attempt.decline?.reason ?? null,
      declineMessage: attempt.decline?.message ?? null,
      createdAt: attempt.at ?? clock.now(),
    })),
  );
}

export async function listPayments(
  db: Db,
  ctx: AuthContext,
  q: PaymentListQuery,
  page: Pagination,
) {
  const { rows, total } = await listPaymentRows(
    db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      checkoutIds: q.checkout_id,
      orderIds: q.order_id,
      customerIds: q.customer_id,
      statuses: q.status,
      methods: q.method,
      customerEmails: q.customer_email,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(paymentOut), total, page);
}

export async function getPayment(db: Db, ctx: AuthContext, id: string) {
  const row = await findPayment(db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Payment not found.");
  return paymentOut(row);
}

/** The customer's subscriptions that still need a card (the subscriptions module answers). */
export type CardNeededBy = (tx: Tx, scope: OrgScope, customerId: string) => Promise<string[]>;

export class PaymentMethodInUseByActiveSubscription extends ApiError {
  constructor() {
    super(
      400,
      "PaymentMethodInUseByActiveSubscription",
      "This payment method is still needed to bill a subscription. Add another one or cancel the subscription first.",
    );
  }
}

/**
 * The customer removes a saved card (portal); false when it is not theirs or already gone. As
 * Polar, the last card is kept while a subscription still needs one to be billed; with another
 * card left, that one becomes the default and bills it. Once removed here, the card is detached at
 * the processor too; if that fails the card is still never charged by till.
 */
export async function deleteCustomerPaymentMethod(
  deps: { db: Db; clock: Clock; processor: PaymentProcessor; cardNeededBy: CardNeededBy },
  customer: { organizationId: string; customerId: string },
  id: string,
  log: Pick<Logger, "warn">,
): Promise<boolean> {
  const scope = scopeOfResource(customer);
  const gone = await inTransaction(deps.db, async (tx) => {
    const removed = await deleteCustomerMethod(
      tx,
      scope,
      customer.customerId,
      id,
      deps.clock.now(),
    );
    if (!removed) return null;
    if ((await listPaymentMethods(tx, scope, customer.customerId)).length > 0) return removed;
    // Rolled back with the error: the card stays.
    if ((await deps.cardNeededBy(tx, scope, customer.customerId)).length > 0)
      throw new PaymentMethodInUseByActiveSubscription();
    return removed;
  });
  if (gone === null) return false;
  await deps.processor
    .detachPaymentMethod?.(gone)
    .catch((err: unknown) => log.warn({ err }, "detaching a removed card at the processor failed"));
  return true;
}

/** Makes one of the customer's live cards the default; false when it is not theirs. */
export async function makeCardDefault(
  db: Db,
  scope: OrgScope,
  customerId: string,
  paymentMethodId: string,
  now: Date,
): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const mine = (await listPaymentMethods(tx, scope, customerId)).find(
      (m) => m.id === paymentMethodId,
    );
    if (!mine) return false;
    await makeDefaultMethod(tx, scope, customerId, mine.processorPaymentMethodId, now);
    return true;
  });
}
