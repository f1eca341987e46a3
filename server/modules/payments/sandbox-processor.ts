// The sandbox PaymentProcessor. Outcomes come from the test card behind the confirmation token (see
// sandbox.ts). Every charge and setup is recorded by idempotency key: a repeated request answers
// what the first one did, and lookupPayment tells the reconciler what became of a payment whose
// confirm crashed. Saved payment methods are "sandbox_pm_..." ids whose card is that record's.
import { createHash } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import {
  DECLINE_MESSAGES,
  type ChargeResult,
  type DeclineCode,
  type OffSessionChargeRequest,
  type PaymentOutcome,
  type PaymentProcessor,
  type SavedPaymentMethod,
} from "./processor.ts";
import {
  findConfirmationToken,
  findSandboxCharge,
  findSandboxCharges,
  findSandboxMethodOrigin,
  findSandboxMethodOrigins,
  recordSandboxCharge,
  recordSandboxCharges,
  type SandboxChargeInsert,
  type SandboxChargeRow,
} from "./repository.ts";
import {
  FIXED_TOKEN_LAST4,
  FIXED_TOKENS,
  REFUND_FAILS_PREFIX,
  REFUND_FAILS_TOKEN,
} from "./sandbox.ts";

interface TokenCard {
  outcome: PaymentOutcome;
  brand: string;
  last4: string;
  expMonth: number | null;
  expYear: number | null;
}

/** Stripe answers a lost card's decline with its own message; the reason says which decline. */
const LOST_CARD_MESSAGE = "Your card was declined: the issuer reports it lost.";

const digest = (key: string) => createHash("sha256").update(key).digest("base64url").slice(0, 24);

async function cardOf(db: Db, tokenId: string): Promise<TokenCard | null> {
  if (tokenId === REFUND_FAILS_TOKEN)
    return { outcome: "success", brand: "visa", last4: "5126", expMonth: 12, expYear: 2099 };
  const fixed = FIXED_TOKENS[tokenId];
  if (fixed)
    return {
      outcome: fixed,
      brand: "visa",
      last4: FIXED_TOKEN_LAST4[fixed],
      expMonth: 12,
      expYear: 2099,
    };
  const token = await findConfirmationToken(db, tokenId);
  if (!token) return null;
  return {
    outcome: token.outcome,
    brand: token.brand,
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
  };
}

function declineOf(outcome: PaymentOutcome | null): DeclineCode | null {
  if (outcome === null) return "invalid_token";
  if (outcome === "declined") return "card_declined";
  if (outcome === "insufficient_funds") return "insufficient_funds";
  return null;
}

/** A test card's fingerprint: one per card number, as Stripe's are per account. */
function sandboxFingerprint(card: { brand: string; last4: string }): string {
  return `sandbox_fp_${digest(`${card.brand}:${card.last4}`)}`;
}

function savedMethod(row: SandboxChargeRow): SavedPaymentMethod | null {
  if (!row.paymentMethodId || !row.brand || !row.last4) return null;
  return {
    fingerprint: sandboxFingerprint({ brand: row.brand, last4: row.last4 }),
    processorPaymentMethodId: row.paymentMethodId,
    processorCustomerId: null,
    type: "card",
    brand: row.brand,
    last4: row.last4,
    expMonth: row.expMonth,
    expYear: row.expYear,
  };
}

function chargeResultOf(row: SandboxChargeRow): ChargeResult {
  if (row.status === "failed") {
    const code = (row.failureCode ?? "processing_error") as DeclineCode;
    const message = row.failureMessage ?? DECLINE_MESSAGES[code];
    if (row.outcome !== "renewal_lost_card")
      return { status: "failed", code, message, doNotRetry: false };
    return { status: "failed", code, message, doNotRetry: true, reason: "lost_card" };
  }
  return {
    status: "succeeded",
    processorPaymentId: row.processorPaymentId!,
    card: { brand: row.brand!, last4: row.last4! },
    paymentMethod: savedMethod(row),
  };
}

/** The row an off-session charge records: the saved card's outcome decides it. */
function offSessionRow(
  request: OffSessionChargeRequest,
  origin: SandboxChargeRow | null,
): SandboxChargeInsert {
  const base = {
    idempotencyKey: request.idempotencyKey,
    kind: "off_session" as const,
    amount: request.amount,
    currency: request.currency,
    paymentMethodId: request.paymentMethod.processorPaymentMethodId,
    brand: origin?.brand ?? null,
    last4: origin?.last4 ?? null,
    expMonth: origin?.expMonth ?? null,
    expYear: origin?.expYear ?? null,
    outcome: origin?.outcome ?? null,
  };
  const code: DeclineCode | null = !origin
    ? "invalid_token"
    : origin.outcome === "renewal_declined" || origin.outcome === "renewal_lost_card"
      ? "card_declined"
      : null;
  const message =
    origin?.outcome === "renewal_lost_card" ? LOST_CARD_MESSAGE : code && DECLINE_MESSAGES[code];
  return code
    ? { ...base, status: "failed", failureCode: code, failureMessage: message }
    : {
        ...base,
        status: "succeeded",
        processorPaymentId: `sandbox_pay_${digest(request.idempotencyKey)}`,
      };
}

/** The row a charge or setup with this token records: its outcome decided, nothing stored yet. */
function attempt(
  key: string,
  kind: "charge" | "setup",
  card: TokenCard | null,
  save: boolean,
  amount: number,
  currency: string,
): SandboxChargeInsert {
  const code = declineOf(card?.outcome ?? null);
  const base = { idempotencyKey: key, kind, amount, currency, outcome: card?.outcome ?? null };
  if (code || !card)
    return {
      ...base,
      status: "failed",
      failureCode: code ?? "invalid_token",
      failureMessage: DECLINE_MESSAGES[code ?? "invalid_token"],
      brand: card?.brand ?? null,
      last4: card?.last4 ?? null,
    };
  const prefix =
    kind === "setup"
      ? "sandbox_seti_"
      : card.last4 === "5126"
        ? REFUND_FAILS_PREFIX
        : "sandbox_pay_";
  return {
    ...base,
    status: "succeeded",
    processorPaymentId: `${prefix}${digest(key)}`,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    paymentMethodId: save ? `sandbox_pm_${digest(`pm:${key}`)}` : null,
  };
}

export function createSandboxProcessor(deps: { db: Db }): PaymentProcessor {
  const { db } = deps;
  return {
    name: "sandbox",
    async charge(request) {
      const done = await findSandboxCharge(db, request.idempotencyKey);
      if (done) return chargeResultOf(done);
      const card = await cardOf(db, request.confirmationTokenId);
      const row = attempt(
        request.idempotencyKey,
        "charge",
        card,
        request.savePaymentMethod ?? false,
        request.amount,
        request.currency,
      );
      return chargeResultOf(await recordSandboxCharge(db, row));
    },
    async cardFingerprint(confirmationTokenId) {
      const card = await cardOf(db, confirmationTokenId);
      return card ? sandboxFingerprint(card) : null;
    },
    async setup(request) {
      const done =
        (await findSandboxCharge(db, request.idempotencyKey)) ??
        (await recordSandboxCharge(
          db,
          attempt(
            request.idempotencyKey,
            "setup",
            await cardOf(db, request.confirmationTokenId),
            true,
            0,
            "usd",
          ),
        ));
      const result = chargeResultOf(done);
      if (result.status === "failed") return result;
      return { status: "succeeded", paymentMethod: savedMethod(done)! };
    },
    async chargeOffSession(request) {
      const done = await findSandboxCharge(db, request.idempotencyKey);
      if (done) return chargeResultOf(done);
      const origin = await findSandboxMethodOrigin(
        db,
        request.paymentMethod.processorPaymentMethodId,
      );
      return chargeResultOf(await recordSandboxCharge(db, offSessionRow(request, origin)));
    },
    async chargeOffSessionMany(requests) {
      if (requests.length === 0) return [];
      const done = await findSandboxCharges(
        db,
        requests.map((r) => r.idempotencyKey),
      );
      const fresh = requests.filter((r) => !done.has(r.idempotencyKey));
      if (fresh.length > 0) {
        const origins = await findSandboxMethodOrigins(db, [
          ...new Set(fresh.map((r) => r.paymentMethod.processorPaymentMethodId)),
        ]);
        const rows = fresh.map((r) =>
          offSessionRow(r, origins.get(r.paymentMethod.processorPaymentMethodId) ?? null),
        );
        for (const row of await recordSandboxCharges(db, rows)) done.set(row.idempotencyKey, row);
      }
      return requests.map((r) => chargeResultOf(done.get(r.idempotencyKey)!));
    },
    async refund(request) {
      if (request.processorPaymentId.startsWith(REFUND_FAILS_PREFIX))
        return { status: "failed", message: "The card issuer declined the refund." };
      return {
        status: "succeeded",
        processorRefundId: `sandbox_re_${digest(request.idempotencyKey)}`,
      };
    },
    async lookupPayment(idempotencyKey) {
      const row = await findSandboxCharge(db, idempotencyKey);
      if (!row) return { status: "not_found" };
      if (row.status === "failed") return { status: "failed" };
      return {
        status: "succeeded",
        processorPaymentId: row.processorPaymentId!,
        card: { brand: row.brand!, last4: row.last4! },
        paymentMethod: savedMethod(row),
      };
    },
  };
}
