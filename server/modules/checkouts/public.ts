// The checkout page's side: read and update a session by its client secret (no other credential),
// and the update rules shared with the seller's PATCH. An expired session answers 410; one that is
// no longer open cannot change.
import { inTransaction, type Tx } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { hashToken } from "../../lib/tokens.ts";
import { discountByCode, discountOf } from "../discounts/service.ts";
import type { DiscountRow } from "../discounts/repository.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { activePrices, serializeProductsByIds } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import type { CheckoutUpdate, CheckoutUpdatePublic } from "./schemas.ts";
import { type CheckoutView, checkoutOut, checkoutPublicOut } from "./serialize.ts";
import {
  loadPublicView,
  loadView,
  normalizeAddress,
  priceCheckout,
  withOrganization,
  type CheckoutDeps,
} from "./service.ts";
import { assertDiscountUnderBuyerLimit, assertNoOtherSubscription } from "./purchase-rules.ts";
import { checkoutTaxId, customFieldIssues } from "./validate.ts";

export class ExpiredCheckoutError extends ApiError {
  constructor() {
    super(410, "ExpiredCheckoutError", "This checkout session has expired.");
  }
}

export class NotOpenCheckout extends ApiError {
  constructor() {
    super(403, "NotOpenCheckout", "This checkout is not open anymore.");
  }
}

export class PaymentError extends ApiError {
  constructor(detail: string) {
    super(400, "PaymentError", detail);
  }

  /** A refusal of the card, in Polar's words: the processor's reason, then what the buyer can do. */
  static declined(reason: string): PaymentError {
    return new PaymentError(
      `The payment failed: ${reason} Please try again with a different payment method.`,
    );
  }
}

/** The session behind a client secret; 404 when unknown, 410 once past its expiry. */
export async function bySecret(
  deps: Pick<CheckoutDeps, "db" | "clock">,
  secret: string,
): Promise<repo.CheckoutRow> {
  const row = secret.startsWith("till_c_")
    ? await repo.findBySecretHash(deps.db, hashToken(secret))
    : null;
  if (!row) throw new ResourceNotFound("Checkout not found.");
  if (row.status === "expired" || (row.status === "open" && row.expiresAt <= deps.clock.now()))
    throw new ExpiredCheckoutError();
  return row;
}

export async function getClientCheckout(deps: CheckoutDeps, secret: string) {
  return checkoutPublicOut(await loadPublicView(deps, await bySecret(deps, secret)));
}

export async function updateClientCheckout(
  deps: CheckoutDeps,
  secret: string,
  input: CheckoutUpdatePublic,
) {
  const row = await bySecret(deps, secret);
  const { discount_code, ...rest } = input;
  // The buyer hears that a discount is used up when applying it or giving an email that used it,
  // not after filling in the card; confirm checks again under the discount's lock.
  const view = await applyUpdate(deps, row, rest, discount_code, (v, tx) =>
    assertDiscountUnderBuyerLimit(tx, v.row, v.discount?.maxRedemptionsPerCustomer ?? null),
  );
  return checkoutPublicOut(await withOrganization(deps, view));
}

type AnyUpdate = Partial<CheckoutUpdate>;

/**
 * Applies an update to an open session, reprices it and records checkout.updated, all in one
 * transaction. `discountCode` is the customer's typed code (undefined: untouched, null or "": removed).
 * The session is locked and read again first: two updates at once (the page sends the seats while
 * its country is still on its way) each see the other's, where the later used to write back the
 * seats or total it had read before the first committed. `check` sees the updated session before
 * commit; what it throws rolls the update back (confirm's validation, the buyer's discount limit).
 */
export async function applyUpdate(
  deps: CheckoutDeps,
  found: repo.CheckoutRow,
  input: AnyUpdate,
  discountCode: string | null | undefined,
  check?: (view: CheckoutView, tx: Tx) => void | Promise<void>,
) {
  return inTransaction(deps.db, async (tx) => {
    const view = await updateLocked(deps, tx, found, input, discountCode);
    await check?.(view, tx);
    return view;
  });
}

/**
 * In the caller's transaction: the session locked and read again, refused unless still open, and
 * the update applied to it (with no update, the session as it is). The lock is held until that
 * transaction ends.
 */
export async function updateLocked(
  deps: CheckoutDeps,
  tx: Tx,
  found: repo.CheckoutRow,
  input: AnyUpdate | null,
  discountCode: string | null | undefined,
): Promise<CheckoutView> {
  const row = (await repo.lockCheckout(tx, found.id)) ?? found;
  if (row.status !== "open") throw new NotOpenCheckout();
  if (row.expiresAt <= deps.clock.now()) throw new ExpiredCheckoutError();
  const txDeps = { ...deps, db: tx };
  return input ? applyLocked(txDeps, tx, row, input, discountCode) : loadView(txDeps, row);
}

async function applyLocked(
  deps: CheckoutDeps,
  tx: Tx,
  row: repo.CheckoutRow,
  input: AnyUpdate,
  discountCode: string | null | undefined,
) {
  let productId = row.productId;
  let productPriceId = row.productPriceId;
  if (input.product_id || input.product_price_id) {
    const prices = await activePrices(deps.db, scopeOfResource(row), row.productIds);
    const price = input.product_price_id
      ? prices.find((p) => p.id === input.product_price_id)
      : prices.find((p) => p.productId === input.product_id);
    if (!price) {
      const loc = input.product_price_id ? "product_price_id" : "product_id";
      throw RequestValidationError.field(
        ["body", loc],
        "Not one of the products offered by this checkout.",
      );
    }
    productId = price.productId;
    productPriceId = price.id;
  }

  let discount: DiscountRow | null = row.discountId
    ? await discountOf(deps.db, scopeOfResource(row), row.discountId)
    : null;
  if (discountCode !== undefined) {
    if (!row.allowDiscountCodes)
      throw RequestValidationError.field(
        ["body", "discount_code"],
        "Discount codes are not accepted for this checkout.",
      );
    discount = discountCode
      ? await discountByCode(deps.db, scopeOfResource(row), discountCode)
      : null;
    if (discountCode && !discount)
      throw RequestValidationError.field(
        ["body", "discount_code"],
        "This discount code is not valid.",
      );
  }
  if (input.discount_id !== undefined) {
    discount = input.discount_id
      ? await discountOf(deps.db, scopeOfResource(row), input.discount_id)
      : null;
    if (input.discount_id && (!discount || discount.deletedAt)) {
      throw RequestValidationError.field(["body", "discount_id"], "Discount not found.");
    }
  }

  const customFieldData = input.custom_field_data
    ? { ...row.customFieldData, ...input.custom_field_data }
    : row.customFieldData;
  if (input.custom_field_data) {
    const [product] = await serializeProductsByIds(
      deps.db,
      deps.config.baseUrl,
      scopeOfResource(row),
      [productId],
    );
    const issues = customFieldIssues(
      product?.attached_custom_fields ?? [],
      input.custom_field_data,
      false,
    );
    if (issues.length) throw new RequestValidationError(issues);
  }

  const billingAddress =
    input.customer_billing_address === undefined
      ? row.customerBillingAddress
      : input.customer_billing_address
        ? normalizeAddress(input.customer_billing_address)
        : null;
  const pricing = await priceCheckout(
    deps,
    {
      organizationId: row.organizationId,
      productId,
      productPriceId,
      requestedAmount: input.amount ?? (productPriceId === row.productPriceId ? row.amount : null),
      requestedSeats: input.seats,
      currentSeats: row.seats,
      minSeats: row.minSeats,
      maxSeats: row.maxSeats,
      discount,
      country: billingAddress?.country ?? null,
    },
    {
      amount: ["body", "amount"],
      discount: ["body", discountCode !== undefined ? "discount_code" : "discount_id"],
      seats: ["body", "seats"],
    },
  );

  const set = <K extends keyof repo.CheckoutInsert>(
    key: K,
    value: repo.CheckoutInsert[K] | undefined,
  ): Partial<repo.CheckoutInsert> => (value === undefined ? {} : { [key]: value });
  const values: Partial<repo.CheckoutInsert> = {
    productId,
    productPriceId,
    ...pricing,
    discountId: discount?.id ?? null,
    customerBillingAddress: billingAddress,
    customFieldData,
    ...set("customerName", input.customer_name),
    ...set("customerEmail", input.customer_email),
    ...set("customerBillingName", input.customer_billing_name),
    ...set("customerTaxId", taxIdOf(row, input, billingAddress)),
    ...set("isBusinessCustomer", input.is_business_customer ?? undefined),
    // No longer a business purchase: its business name and tax ID go with it (as at Polar, where
    // a stale tax ID would keep a business's tax treatment), whatever else the request sent.
    ...(input.is_business_customer === false
      ? { customerBillingName: null, customerTaxId: null }
      : {}),
    ...set("metadata", input.metadata),
    ...set("customerMetadata", input.customer_metadata ?? undefined),
    ...set("allowDiscountCodes", input.allow_discount_codes ?? undefined),
    ...set("requireBillingAddress", input.require_billing_address ?? undefined),
    ...("trial_interval" in input ? set("trialInterval", input.trial_interval) : {}),
    ...("trial_interval_count" in input
      ? set("trialIntervalCount", input.trial_interval_count)
      : {}),
    ...set("customerIpAddress", input.customer_ip_address),
    ...set("successUrl", input.success_url?.replaceAll("{CHECKOUT_ID}", row.id)),
    ...set("returnUrl", input.return_url),
    ...set(
      "embedOrigin",
      input.embed_origin === undefined
        ? undefined
        : input.embed_origin
          ? new URL(input.embed_origin).origin
          : null,
    ),
    modifiedAt: deps.clock.now(),
  };
  await assertNoOtherSubscription(deps.db, {
    organizationId: row.organizationId,
    productId,
    customerId: row.customerId,
    customerEmail: input.customer_email === undefined ? row.customerEmail : input.customer_email,
    subscriptionId: row.subscriptionId,
  });
  const updated = await repo.updateCheckout(tx, row.id, values);
  const view = await loadView(deps, updated);
  await recordEvent(tx, deps.clock, {
    organizationId: row.organizationId,
    type: "checkout.updated",
    data: checkoutOut(view),
  });
  return view;
}

/**
 * The session's tax ID after an update: cleared by an empty one or by no longer buying as a
 * business; checked against the billing country when typed anew or when that country changes
 * (Polar's rule), so the session never holds a number its country refutes.
 */
function taxIdOf(
  row: repo.CheckoutRow,
  input: AnyUpdate,
  address: repo.CheckoutRow["customerBillingAddress"],
): string | null | undefined {
  if (input.is_business_customer === false) return null;
  const typed = input.customer_tax_id === null ? "" : input.customer_tax_id?.trim();
  if (typed === "") return null;
  const number = typed ?? row.customerTaxId;
  const moved = (address?.country ?? null) !== (row.customerBillingAddress?.country ?? null);
  if (!number || (number === row.customerTaxId && !moved)) return undefined;
  return checkoutTaxId(number, address?.country);
}

export async function checkoutEventData(
  deps: Pick<CheckoutDeps, "db" | "config" | "secretBox">,
  tx: Tx,
  row: repo.CheckoutRow,
) {
  return checkoutOut(await loadView({ ...deps, db: tx }, row));
}

/** The seller's PATCH of a session: the same rules as the page's update. */
export async function updateCheckout(
  deps: CheckoutDeps,
  ctx: AuthContext,
  id: string,
  input: CheckoutUpdate,
) {
  const row = await repo.findCheckout(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Checkout not found.");
  return checkoutOut(await applyUpdate(deps, row, input, null));
}
