// Taking the money for a claimed checkout: a charge through the processor (saving the card when the
// product recurs), or for a zero-amount recurring checkout given a card, a setup that saves it
// without charging. Runs outside any transaction; the idempotency key is the checkout and its
// attempt number, so the reconciler can ask the processor what became of it after a crash.
import { scopeOfResource } from "../../lib/org-scope.ts";
import { findBuyer } from "../customers/buyers.ts";
import { NO_PROCESSOR_MESSAGE } from "../payments/none.ts";
import type { PaymentReplay } from "../../../db/schema/checkouts.ts";
import type { ChargeRequest, PaymentCustomer, SavedPaymentMethod } from "../payments/processor.ts";
import { processorCustomerId } from "../payments/queries.ts";
import { PaymentError } from "./public.ts";
import type { CheckoutRow } from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

export interface TakenPayment {
  processorPaymentId: string | null;
  card: { brand: string; last4: string } | null;
  paymentMethod: SavedPaymentMethod | null;
}

export type PaymentAttempt =
  | { status: "succeeded"; payment: TakenPayment }
  | { status: "requires_action"; processorId: string; clientSecret: string }
  | { status: "failed"; code: string; message: string }
  /** The processor did not answer: it may have charged, so the reconciler decides. */
  | { status: "unknown"; message: string };

/**
 * Refuses, before anything changes, a confirm this server cannot take: a paid one without a
 * processor (TILL_PAYMENTS=none), and in production any sandbox token or card number, so a test
 * card never buys a paid product.
 */
export function refusePayment(
  deps: Pick<CheckoutDeps, "config" | "processor">,
  row: Pick<CheckoutRow, "totalAmount"> | null,
  tokenId: string | null | undefined,
): void {
  if (row && deps.processor.name === "none" && row.totalAmount > 0)
    throw new PaymentError(NO_PROCESSOR_MESSAGE);
  if (deps.config.mode === "production" && tokenId && isSandboxDetail(tokenId))
    throw new PaymentError(
      "Sandbox payment details are not accepted: this store takes real payments. Enter a real card.",
    );
}

/** A sandbox confirmation token or fixed token, or a raw card number sent in its place. */
function isSandboxDetail(tokenId: string): boolean {
  return tokenId.startsWith("sandbox_") || /^[\d\s-]{12,23}$/.test(tokenId.trim());
}

export const NO_PAYMENT: TakenPayment = {
  processorPaymentId: null,
  card: null,
  paymentMethod: null,
};

/** The processor's idempotency key for a checkout's current attempt. */
export function paymentKey(row: Pick<CheckoutRow, "id" | "paymentAttempts">): string {
  return `${row.id}:${row.paymentAttempts}`;
}

export async function takePayment(
  deps: CheckoutDeps,
  row: CheckoutRow,
  input: { tokenId: string | undefined; recurring: boolean; trial?: boolean; description: string },
): Promise<PaymentAttempt> {
  const { tokenId, recurring } = input;
  // A trial saves the card with a setup and charges nothing until the trial ends.
  const needsCharge = row.totalAmount > 0 && !input.trial;
  // A free one-time product, or a free recurring one bought without a card: nothing to take.
  if (!tokenId || (!needsCharge && !recurring)) return { status: "succeeded", payment: NO_PAYMENT };
  const customer = await buyerFor(deps, row);
  const metadata = { checkout_id: row.id, organization_id: row.organizationId };
  const idempotencyKey = paymentKey(row);
  try {
    if (!needsCharge) {
      const setup = await deps.processor.setup({
        confirmationTokenId: tokenId,
        idempotencyKey,
        customer,
        metadata,
      });
      if (setup.status === "failed")
        return { status: "failed", code: setup.code, message: setup.message };
      if (setup.status === "requires_action")
        return {
          status: "requires_action",
          processorId: setup.processorSetupId,
          clientSecret: setup.clientSecret,
        };
      const pm = setup.paymentMethod;
      return {
        status: "succeeded",
        payment: {
          processorPaymentId: null,
          card: { brand: pm.brand, last4: pm.last4 },
          paymentMethod: pm,
        },
      };
    }
    const result = await deps.processor.charge(
      chargeRequestOf(
        row,
        {
          confirmationTokenId: tokenId,
          description: input.description,
          savePaymentMethod: recurring,
        },
        customer,
      ),
    );
    if (result.status === "failed")
      return { status: "failed", code: result.code, message: result.message };
    if (result.status === "requires_action")
      return {
        status: "requires_action",
        processorId: result.processorPaymentId,
        clientSecret: result.clientSecret,
      };
    return {
      status: "succeeded",
      payment: {
        processorPaymentId: result.processorPaymentId,
        card: result.card,
        paymentMethod: result.paymentMethod ?? null,
      },
    };
  } catch (err) {
    return { status: "unknown", message: (err as Error).message };
  }
}

/** The charge a claimed attempt asks for: the same each time it is asked (the reconciler's too). */
export function chargeRequestOf(
  row: CheckoutRow,
  replay: PaymentReplay,
  customer: PaymentCustomer,
): ChargeRequest {
  return {
    amount: row.totalAmount,
    currency: row.currency,
    confirmationTokenId: replay.confirmationTokenId,
    idempotencyKey: paymentKey(row),
    description: replay.description,
    savePaymentMethod: replay.savePaymentMethod,
    customer,
    metadata: { checkout_id: row.id, organization_id: row.organizationId },
  };
}

export async function buyerFor(deps: CheckoutDeps, row: CheckoutRow): Promise<PaymentCustomer> {
  const existing = await findBuyer(deps.db, scopeOfResource(row), {
    id: row.customerId,
    externalId: row.externalCustomerId,
    email: row.customerEmail!,
  });
  return {
    id: existing?.id ?? null,
    email: row.customerEmail!,
    name: row.customerName,
    processorCustomerId: existing
      ? await processorCustomerId(deps.db, scopeOfResource(row), existing.id, deps.processor.name)
      : null,
  };
}
