// A discount set by PATCH /v1/subscriptions/{id}, checked as Polar checks it.
import type { Tx } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import {
  discountOf,
  discountRefusal,
  redeemDiscount,
  restrictedProductIds,
} from "../discounts/service.ts";
import type * as repo from "./repository.ts";

/**
 * The discount a PATCH sets, as Polar: one of the subscription's organization, live, applicable to
 * its product and currency, not already on it; setting it takes a redemption. Null takes it off.
 */
export async function discountChange(
  tx: Tx,
  s: repo.SubscriptionRow,
  id: string | null,
  now: Date,
): Promise<string | null> {
  if (id === null) return null;
  const refuse = (msg: string): never => {
    throw RequestValidationError.field(["body", "discount_id"], msg, "value_error");
  };
  const scope = scopeOfResource(s);
  const discount = await discountOf(tx, scope, id);
  if (!discount) return refuse("Discount not found.");
  if (s.discountId === discount.id)
    return refuse("This discount is already applied to the subscription.");
  const refusal = discountRefusal(
    discount,
    s.productId,
    await restrictedProductIds(tx, scope, discount.id),
    s.currency,
    now,
  );
  if (refusal) return refuse(refusal);
  if (!(await redeemDiscount(tx, discount.id)))
    return refuse("This discount has been fully redeemed.");
  return discount.id;
}
