// POST /v1/subscriptions/: a subscription made by the seller, without a checkout, to a free recurring
// product (Polar's rule: paid products go through a checkout). No order is made and no email sent;
// the product's benefits are granted, and subscription.created, subscription.active and
// customer.state_changed are recorded in the same transaction.
import { z } from "zod";
import { inTransaction } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import type { Interval } from "../../lib/periods.ts";
import { metadataInput } from "../../lib/metadata.ts";
import { getCustomer } from "../customers/service.ts";
import { grantBenefitsForOrder } from "../grants/seam.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { createSubscription, serializeSubscription, type SubscriptionDeps } from "./service.ts";

const common = { product_id: z.uuid(), metadata: metadataInput.optional() };
export const subscriptionCreate = z.union([
  z.object({ ...common, customer_id: z.uuid() }).strict(),
  z.object({ ...common, external_customer_id: z.string().min(1).max(256) }).strict(),
]);
export type SubscriptionCreate = z.output<typeof subscriptionCreate>;

const notFree = (msg: string) => RequestValidationError.field(["body", "product_id"], msg);

export async function createFreeSubscription(
  deps: SubscriptionDeps,
  ctx: AuthContext,
  input: SubscriptionCreate,
) {
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfCaller(ctx), [
    input.product_id,
  ]);
  if (!product || !ctx.organizationIds.includes(product.organization_id))
    throw notFree("Product not found.");
  if (!product.is_recurring || product.is_archived)
    throw notFree("The product must be an active recurring product.");
  const prices = product.prices.filter((p) => !p.is_archived);
  const free = (p: (typeof prices)[number]) =>
    p.amount_type === "free" || (p.amount_type === "fixed" && (p.price_amount ?? 0) === 0);
  if (prices.length === 0 || !prices.every(free))
    throw notFree(
      "Only a free product can be subscribed to directly: use a checkout for this one.",
    );
  const customer = await getCustomer(
    deps,
    { ...ctx, organizationIds: [product.organization_id] },
    "customer_id" in input ? { id: input.customer_id } : { externalId: input.external_customer_id },
  ).catch(() => {
    throw RequestValidationError.field(
      ["body", "customer_id" in input ? "customer_id" : "external_customer_id"],
      "Customer not found.",
    );
  });
  const clock = await organizationClock(deps.db, deps.clock, product.organization_id);
  return inTransaction(deps.db, async (tx) => {
    const row = await createSubscription(tx, deps, {
      organizationId: product.organization_id,
      customerId: customer.id,
      productId: product.id,
      priceId: prices[0]!.id,
      checkoutId: null,
      discountId: null,
      amount: 0,
      currency: (prices[0] as { price_currency?: string }).price_currency ?? "usd",
      interval: product.recurring_interval as Interval,
      intervalCount: product.recurring_interval_count ?? 1,
      trial: null,
      metadata: input.metadata ?? {},
      customFieldData: {},
    });
    await grantBenefitsForOrder(
      tx,
      { clock, queue: deps.queue },
      {
        organizationId: row.organizationId,
        id: null,
        customerId: customer.id,
        productId: product.id,
        subscriptionId: row.id,
      },
    );
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, row, [
      "subscription.created",
      "subscription.active",
    ]);
    await recordCustomerState(tx, clock, row);
    return serializeSubscription(tx, deps.baseUrl, row);
  });
}
