// A customer adds a card in the portal (POST /v1/customer-portal/customers/me/payment-methods):
// the processor saves it without taking money (Stripe: a SetupIntent on the customer), it is
// stored as the customer's card, and the default when asked or when it is the first. 3-D Secure
// answers requires_action with the client secret, as Polar does; a refused card is a 400
// PaymentMethodSetupFailed and stores nothing. Once the customer passed the bank's challenge, the
// page confirms (…/payment-methods/confirm) with the setup's id and the card is stored then.
import { z } from "zod";
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { type PaymentProcessor, refusesCard, type SavedPaymentMethod } from "./processor.ts";
import { processorCustomerId } from "./queries.ts";
import { listPaymentMethods, makeDefaultMethod, type PaymentMethodRow } from "./repository.ts";
import { saveCustomerPaymentMethod } from "./service.ts";

export const paymentMethodCreate = z
  .object({
    confirmation_token_id: z.string().min(1).max(500),
    set_default: z.boolean(),
    return_url: z.url({ protocol: /^https?$/ }),
  })
  .strict();
export type PaymentMethodCreate = z.output<typeof paymentMethodCreate>;

export const paymentMethodConfirm = z
  .object({ setup_intent_id: z.string().min(1).max(500), set_default: z.boolean() })
  .strict();
export type PaymentMethodConfirm = z.output<typeof paymentMethodConfirm>;

export class PaymentMethodSetupFailed extends ApiError {
  constructor(detail: string) {
    super(400, "PaymentMethodSetupFailed", detail);
  }
}

export type AddedMethod =
  | { status: "succeeded"; method: PaymentMethodRow; madeDefault: boolean }
  | { status: "requires_action"; clientSecret: string };

export async function addCustomerPaymentMethod(
  deps: { db: Db; clock: Clock; processor: PaymentProcessor },
  ctx: CustomerContext,
  input: PaymentMethodCreate,
): Promise<AddedMethod> {
  if (deps.processor.name === "none")
    throw new PaymentMethodSetupFailed("This store takes no payments.");
  const [customer] = await customersByIds(deps.db, scopeOfCustomer(ctx), [ctx.customerId]);
  if (!customer) throw new PaymentMethodSetupFailed("The customer no longer exists.");
  const scope = scopeOfCustomer(ctx);
  const result = await deps.processor.setup({
    confirmationTokenId: input.confirmation_token_id,
    // The same token twice saves one card.
    idempotencyKey: `portal-card:${ctx.customerId}:${input.confirmation_token_id}`,
    customer: {
      id: customer.id,
      email: customer.email,
      name: customer.name,
      processorCustomerId: await processorCustomerId(
        deps.db,
        scope,
        customer.id,
        deps.processor.name,
      ),
    },
    metadata: { customer_id: customer.id, organization_id: ctx.organizationId },
  });
  if (result.status === "failed")
    throw new PaymentMethodSetupFailed(
      // Polar's words for a refused card: the processor's reason, then what to do.
      refusesCard(result.code)
        ? `Could not add this payment method: ${result.message} Please try again with a different card.`
        : result.message,
    );
  if (result.status === "requires_action")
    return { status: "requires_action", clientSecret: result.clientSecret };
  return storeMethod(deps, ctx, result.paymentMethod, input.set_default);
}

/** The page finished 3-D Secure for a card it added: the setup is read back and the card stored. */
export async function confirmCustomerPaymentMethod(
  deps: { db: Db; clock: Clock; processor: PaymentProcessor },
  ctx: CustomerContext,
  input: PaymentMethodConfirm,
): Promise<AddedMethod> {
  const invalid = () =>
    RequestValidationError.field(
      ["body", "setup_intent_id"],
      "Invalid setup_intent_id.",
      "invalid",
    );
  const setup = deps.processor.lookupSetup
    ? await deps.processor.lookupSetup(input.setup_intent_id)
    : null;
  // Only a setup this customer started in the portal counts.
  if (
    !setup ||
    setup.metadata.customer_id !== ctx.customerId ||
    setup.metadata.organization_id !== ctx.organizationId
  )
    throw invalid();
  if (setup.status === "requires_action" && setup.clientSecret)
    return { status: "requires_action", clientSecret: setup.clientSecret };
  if (setup.status !== "succeeded" || !setup.paymentMethod) throw invalid();
  return storeMethod(deps, ctx, setup.paymentMethod, input.set_default);
}

async function storeMethod(
  deps: { db: Db; clock: Clock; processor: PaymentProcessor },
  ctx: CustomerContext,
  saved: SavedPaymentMethod,
  setDefault: boolean,
): Promise<AddedMethod> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const before = await listPaymentMethods(tx, scopeOfCustomer(ctx), ctx.customerId);
    await saveCustomerPaymentMethod(tx, deps.clock, {
      organizationId: ctx.organizationId,
      customerId: ctx.customerId,
      processor: deps.processor.name,
      method: saved,
    });
    const madeDefault = setDefault || before.length === 0;
    if (setDefault)
      await makeDefaultMethod(
        tx,
        scopeOfCustomer(ctx),
        ctx.customerId,
        saved.processorPaymentMethodId,
        now,
      );
    const after = await listPaymentMethods(tx, scopeOfCustomer(ctx), ctx.customerId);
    const method = after.find(
      (m) => m.processorPaymentMethodId === saved.processorPaymentMethodId,
    )!;
    return { status: "succeeded", method, madeDefault };
  });
}
