// A discount set by PATCH /v1/subscriptions/{id}, checked as Polar checks it.
import { type Db, inTransaction, type Tx } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import {
  discountOf,
  discountRefusal,
  redeemDiscount,
  releaseDiscount,
  restrictedProductIds,
} from "../discounts/service.ts";
import type * as repo from "./repository.ts";

const refuse = (msg: string): never => {
  throw RequestValidationError.field(["body", "discount_id"], msg, "value_error");
};

/**
 * The discount a PATCH sets, as Polar: one of the subscription's organization, live, applicable to
 * its product and currency, not already on it; setting it takes a redemption, unless `taken`
 * (withDiscountHeld took it already, once the change was checked). Null takes it off.
 */
export async function discountChange(
  tx: Tx,
  s: repo.SubscriptionRow,
  id: string | null,
  now: Date,
  taken = false,
): Promise<string | null> {
  if (id === null) return null;
  const scope = scopeOfResource(s);
  const discount = await discountOf(tx, scope, id);
  if (!discount) return refuse("Discount not found.");
  if (s.discountId === discount.id)
    return refuse("This discount is already applied to the subscription.");
  // A held redemption was taken while the discount was live, after the change was checked with it
  // against the product it leaves; the change may have charged since, so a deletion or an end
  // meanwhile does not refuse it (the subscription keeps it as if it had been set just before).
  const refusal = taken
    ? null
    : discountRefusal(
        discount,
        s.productId,
        await restrictedProductIds(tx, scope, discount.id),
        s.currency,
        now,
      );
  if (refusal) return refuse(refusal);
  if (!taken && !(await redeemDiscount(tx, discount.id)))
    return refuse("This discount has been fully redeemed.");
  return discount.id;
}

/**
 * Runs `change` (a plan change, which may charge) with a redemption of the discount sent with it
 * already taken, so another request cannot take the last one meanwhile and have the discount
 * refused after the customer was moved and charged. The redemption is given back if `change`
 * fails; `change` is told whether it holds one (null: no discount to hold).
 */
export async function withDiscountHeld<T>(
  db: Db,
  id: string | null | undefined,
  change: (held: boolean) => Promise<T>,
): Promise<T> {
  if (!id) return change(false);
  if (!(await inTransaction(db, (tx) => redeemDiscount(tx, id))))
    return refuse("This discount has been fully redeemed.");
  try {
    return await change(true);
  } catch (err) {
    await inTransaction(db, (tx) => releaseDiscount(tx, id));
    throw err;
  }
}
