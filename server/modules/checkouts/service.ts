// Checkout sessions for sellers: create (from products, a product, or a legacy price id), read, list
// and update. Every change reprices the session (subtotal, discount, tax, total) and is recorded as
// checkout.created / checkout.updated in the same transaction (a create: in the same statement).
import { randomUUID } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  RequestValidationError,
  ResourceNotFound,
  type ValidationIssue,
} from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { boughtAsBusiness, findCustomerForCheckout } from "../customers/buyers.ts";
import { discountOf, discountRefusal, restrictedProductIds } from "../discounts/service.ts";
import type { DiscountRow } from "../discounts/repository.ts";
import { organizationSummary } from "../organizations/service.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import type { PriceRow } from "../products/repository.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { priceById, serializeProductsByIds, productsWithPrices } from "../products/service.ts";
import type { TaxCalculator } from "../tax/calculator.ts";
import { outboxRow } from "../webhooks/outbox.ts";
import { computeAmounts, seatsOf, subtotalOf } from "./amounts.ts";
import * as repo from "./repository.ts";
import type { CheckoutCreate, CheckoutListQuery } from "./schemas.ts";
import { checkoutOut, type CheckoutPublicView, type CheckoutView } from "./serialize.ts";
import { upgradeOf } from "./upgrade.ts";
import { checkoutTaxId, customFieldIssues } from "./validate.ts";

export interface CheckoutDeps {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  secretBox: SecretBox;
  tax: TaxCalculator;
  processor: PaymentProcessor;
  queue: QueueHandle | null;
}

/** What the seller's view of a session shows besides the row: its products and discount. */
export async function loadView(
  deps: Pick<CheckoutDeps, "db" | "config" | "secretBox">,
  row: repo.CheckoutRow,
): Promise<CheckoutView> {
  const clientSecret = deps.secretBox.open(row.clientSecretEnc);
  const [products, discount] = await Promise.all([
    serializeProductsByIds(deps.db, deps.config.baseUrl, scopeOfResource(row), row.productIds),
    row.discountId ? discountOf(deps.db, scopeOfResource(row), row.discountId) : null,
  ]);
  const stripe = deps.config.payments.stripe;
  return {
    row,
    clientSecret,
    url: `${deps.config.baseUrl}/checkout/${clientSecret}`,
    products,
    discount,
    ...(stripe
      ? {
          processorMetadata: {
            publishable_key: stripe.publishableKey,
            stripe_js_url: stripe.jsUrl,
          },
        }
      : {}),
  };
}

/** The page's view adds the selling organization. */
export async function withOrganization(
  deps: Pick<CheckoutDeps, "db">,
  view: CheckoutView,
): Promise<CheckoutPublicView> {
  return { ...view, organization: await organizationSummary(deps.db, view.row.organizationId) };
}

export async function loadPublicView(
  deps: Pick<CheckoutDeps, "db" | "config" | "secretBox">,
  row: repo.CheckoutRow,
): Promise<CheckoutPublicView> {
  const [view, organization] = await Promise.all([
    loadView(deps, row),
    organizationSummary(deps.db, row.organizationId),
  ]);
  return { ...view, organization };
}

export async function serializeCheckout(
  deps: Pick<CheckoutDeps, "db" | "config" | "secretBox">,
  row: repo.CheckoutRow,
) {
  return checkoutOut(await loadView(deps, row));
}

function invalid(issues: ValidationIssue[]): never {
  throw new RequestValidationError(issues);
}

/** Fields that decide the price; the result is stored on the row. */
export interface PricingInput {
  organizationId: string;
  productId: string;
  productPriceId: string;
  requestedAmount: number | null | undefined;
  /** Requested seats (undefined: keep `currentSeats`), within the session's bounds. */
  requestedSeats: number | null | undefined;
  currentSeats: number | null;
  minSeats: number | null;
  maxSeats: number | null;
  discount: DiscountRow | null;
  country: string | null;
}

export async function priceCheckout(
  deps: Pick<CheckoutDeps, "db" | "clock" | "tax">,
  input: PricingInput,
  loc: { amount: (string | number)[]; discount: (string | number)[]; seats: (string | number)[] },
  preloaded?: PriceRow,
) {
  const price =
    preloaded?.id === input.productPriceId
      ? preloaded
      : await priceById(deps.db, scopeOfResource(input), input.productPriceId);
  if (!price) throw new ResourceNotFound("Price not found.");
  const seats = seatsOf(price, input.requestedSeats, input.currentSeats, input);
  if (!seats.ok) invalid([{ loc: loc.seats, msg: seats.msg, type: "value_error" }]);
  const subtotal = subtotalOf(price, input.requestedAmount, seats.seats);
  if (!subtotal.ok) invalid([{ loc: loc.amount, msg: subtotal.msg, type: "value_error" }]);
  const currency = price.priceCurrency;
  if (input.discount) {
    const refusal = discountRefusal(
      input.discount,
      input.productId,
      await restrictedProductIds(deps.db, scopeOfResource(input), input.discount.id),
      currency,
      deps.clock.now(),
    );
    if (refusal) invalid([{ loc: loc.discount, msg: refusal, type: "value_error" }]);
  }
  const amounts = computeAmounts({
    subtotal: subtotal.amount,
    discount: input.discount,
    currency,
    country: input.country,
    tax: deps.tax,
  });
  return { currency, seats: seats.seats, ...amounts };
}

/**
 * The products offered and the one price selected first, from the three creation forms. The
 * organization's products are read once, with their prices and what Polar's Product shows, and
 * serve validation, pricing and the response.
 */
async function resolveOffer(deps: CheckoutDeps, organizationId: string, input: CheckoutCreate) {
  // The organization was proven by organizationForWrite.
  const scope = scopeOfResource({ organizationId });
  let productIds: string[];
  let priceId: string | null = null;
  if (input.product_price_id) {
    const price = await priceById(deps.db, scope, input.product_price_id);
    if (!price || price.isArchived)
      invalid([
        {
          loc: ["body", "product_price_id"],
          msg: "Price not found or archived.",
          type: "value_error",
        },
      ]);
    productIds = [price.productId];
    priceId = price.id;
  } else {
    productIds = [...new Set(input.products ?? [input.product_id!])];
  }
  const products = await productsWithPrices(deps.db, deps.config.baseUrl, scope, productIds);
  const found = new Map(products.map((p) => [p.row.id, p]));
  if (priceId && !found.has(productIds[0]!))
    invalid([
      {
        loc: ["body", "product_price_id"],
        msg: "Price not found or archived.",
        type: "value_error",
      },
    ]);
  const loc = input.products ? ["body", "products"] : ["body", "product_id"];
  productIds.forEach((id, i) => {
    const product = found.get(id)?.row;
    if (!product)
      invalid([
        {
          loc: input.products ? [...loc, i] : loc,
          msg: "Product not found in this organization.",
          type: "value_error",
        },
      ]);
    if (product.isArchived)
      invalid([
        {
          loc: input.products ? [...loc, i] : loc,
          msg: "This product is archived and cannot be sold.",
          type: "value_error",
        },
      ]);
  });
  const offered = found.get(productIds[0]!)!.prices;
  const first = priceId ? (offered.find((p) => p.id === priceId) ?? null) : (offered[0] ?? null);
  if (!first) invalid([{ loc, msg: "This product has no active price.", type: "value_error" }]);
  return {
    productIds,
    productId: productIds[0]!,
    productPriceId: first.id,
    price: first,
    products: products.map((p) => p.out),
  };
}

export async function createCheckout(
  deps: CheckoutDeps,
  ctx: AuthContext,
  input: CheckoutCreate,
  checkoutLinkId: string | null = null,
) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const { price, products, ...offer } = await resolveOffer(deps, organizationId, input);
  let discount: DiscountRow | null = null;
  if (input.discount_id) {
    discount = await discountOf(deps.db, scopeOfResource({ organizationId }), input.discount_id);
    if (!discount || discount.deletedAt)
      invalid([{ loc: ["body", "discount_id"], msg: "Discount not found.", type: "value_error" }]);
  }
  const scope = scopeOfResource({ organizationId });
  // An upgrade's customer is the subscription's.
  const upgrade = input.subscription_id ? await upgradeOf(deps.db, scope, input) : null;
  const customer =
    upgrade?.customer ??
    (await findCustomerForCheckout(deps.db, scope, {
      id: input.customer_id ?? null,
      externalId: input.external_customer_id ?? null,
    }));
  if (input.customer_id && !customer)
    invalid([{ loc: ["body", "customer_id"], msg: "Customer not found.", type: "value_error" }]);

  const issues = customFieldIssues(
    products.find((p) => p.id === offer.productId)?.attached_custom_fields ?? [],
    input.custom_field_data ?? {},
    false,
  );
  if (issues.length) invalid(issues);

  const billingAddress = input.customer_billing_address ?? customer?.billingAddress ?? null;
  const typedTaxId = input.customer_tax_id?.trim();
  const pricing = await priceCheckout(
    deps,
    {
      organizationId,
      ...offer,
      requestedAmount: input.amount,
      requestedSeats: input.seats,
      currentSeats: null,
      minSeats: input.min_seats ?? null,
      maxSeats: input.max_seats ?? null,
      discount,
      country: billingAddress?.country ?? null,
    },
    { amount: ["body", "amount"], discount: ["body", "discount_id"], seats: ["body", "seats"] },
    price,
  );
  const id = randomUUID();
  const secret = newToken("till_c_");
  const url = `${deps.config.baseUrl}/checkout/${secret}`;
  const now = deps.clock.now();
  // Every column is given, so the row is known before the insert: the event and the response are
  // one rendering of it.
  const values: repo.CheckoutRow = {
    id,
    organizationId,
    status: "open",
    clientSecretHash: hashToken(secret),
    clientSecretEnc: deps.secretBox.seal(secret),
    expiresAt: new Date(now.getTime() + deps.config.checkoutTtlSeconds * 1000),
    successUrl: input.success_url?.replaceAll("{CHECKOUT_ID}", id) ?? null,
    returnUrl: input.return_url ?? null,
    embedOrigin: input.embed_origin ? new URL(input.embed_origin).origin : null,
    ...offer,
    ...pricing,
    minSeats: input.min_seats ?? null,
    maxSeats: input.max_seats ?? null,
    discountId: discount?.id ?? null,
    discountRedeemed: false,
    allowDiscountCodes: input.allow_discount_codes,
    requireBillingAddress: input.require_billing_address,
    trialInterval: input.trial_interval ?? null,
    trialIntervalCount: input.trial_interval_count ?? null,
    allowTrial: input.allow_trial ?? null,
    isBusinessCustomer: input.is_business_customer ?? boughtAsBusiness(customer),
    customerId: customer?.id ?? null,
    externalCustomerId: input.external_customer_id ?? customer?.externalId ?? null,
    customerName: input.customer_name ?? customer?.name ?? null,
    customerEmail: input.customer_email ?? customer?.email ?? null,
    customerIpAddress: input.customer_ip_address ?? null,
    customerBillingName: input.customer_billing_name ?? customer?.billingName ?? null,
    customerBillingAddress: billingAddress ? normalizeAddress(billingAddress) : null,
    customerTaxId: typedTaxId
      ? checkoutTaxId(typedTaxId, billingAddress?.country)
      : typedTaxId === ""
        ? null
        : (customer?.taxId?.[0] ?? null),
    customFieldData: input.custom_field_data ?? {},
    metadata: input.metadata ?? {},
    customerMetadata: input.customer_metadata ?? {},
    paymentProcessor: deps.processor.name,
    paymentAttempts: 0,
    paymentError: null,
    processorPaymentId: null,
    paymentReplay: null,
    cardBrand: null,
    cardLast4: null,
    orderId: null,
    subscriptionId: upgrade?.subscriptionId ?? null,
    checkoutLinkId,
    createdAt: now,
    modifiedAt: null,
  };
  const out = checkoutOut({ row: values, clientSecret: secret, url, products, discount });
  await repo.insertCheckoutWithEvent(
    deps.db,
    values,
    outboxRow(deps.clock, { organizationId, type: "checkout.created", data: out }),
  );
  return out;
}

export function normalizeAddress(a: {
  country: string;
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
}) {
  return {
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    postal_code: a.postal_code ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    country: a.country,
  };
}

export async function getCheckout(deps: CheckoutDeps, ctx: AuthContext, id: string) {
  const row = await repo.findCheckout(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Checkout not found.");
  return serializeCheckout(deps, row);
}

export async function listCheckouts(
  deps: CheckoutDeps,
  ctx: AuthContext,
  query: CheckoutListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listCheckouts(
    deps.db,
    {
      scope: scopeOfCaller(ctx, query.organization_id),
      productIds: query.product_id,
      customerIds: query.customer_id,
      externalCustomerIds: query.external_customer_id,
      statuses: query.status,
      query: query.query,
    },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await Promise.all(rows.map((r) => serializeCheckout(deps, r))), total, page);
}
