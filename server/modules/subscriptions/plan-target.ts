// Which products a subscription may move to, checked as Polar's validate_product_change does and
// answered with its messages: one of the organization's, not archived, of a visibility the caller
// may choose (the customer portal: public ones only), recurring, with prices in the subscription's
// currency, none of them pay-what-you-want (a plan change has no amount to take one from).
import { RequestValidationError } from "../../lib/errors.ts";
import type { CyclePrice } from "./amounts.ts";
import type { DisplayProduct } from "./renewal.ts";
import type * as repo from "./repository.ts";

export type ProductVisibility = DisplayProduct["visibility"];

export const invalidProduct = (msg: string) =>
  RequestValidationError.field(["body", "product_id"], msg, "value_error");

/** `product`, once the subscription may move there, and the ids of the prices it would bill. */
export function planTarget(
  s: repo.SubscriptionRow,
  product: DisplayProduct | undefined,
  visibilities: readonly ProductVisibility[] | null,
): { product: DisplayProduct; priceIds: string[] } {
  if (!product || product.organization_id !== s.organizationId)
    throw invalidProduct("Product does not exist.");
  if (product.is_archived) throw invalidProduct("Product is archived.");
  if (visibilities && !visibilities.includes(product.visibility))
    throw invalidProduct("Product visibility is not allowed.");
  if (!product.is_recurring) throw invalidProduct("Product is not recurring.");
  // The subscription keeps its currency: only the new product's prices in it are billed.
  const prices = (
    product.prices as (CyclePrice & { is_archived: boolean; price_currency?: string })[]
  ).filter((p) => !p.is_archived && p.price_currency === s.currency);
  if (prices.length === 0)
    throw invalidProduct("This product doesn't have a price for the subscription currency.");
  if (prices.some((p) => p.amount_type === "custom"))
    throw invalidProduct("Can't update to a product with custom prices.");
  return { product, priceIds: prices.map((p) => p.id) };
}
