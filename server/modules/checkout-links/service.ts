// Checkout links: a reusable URL (/buy/{client_secret}) that opens a fresh checkout session for the
// same products each time it is visited, with the visit's embed origin and prefill parameters.
import type { z } from "zod";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { createCheckout } from "../checkouts/service.ts";
import type { CheckoutDeps } from "../checkouts/service.ts";
import { discountOf } from "../discounts/service.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds, productsOf } from "../products/service.ts";
import * as repo from "./repository.ts";
import {
  checkoutLinkOut,
  type LinkListQuery,
  type linkCreate,
  type linkUpdate,
  type buyQuery,
} from "./schemas.ts";

async function render(deps: CheckoutDeps, row: repo.CheckoutLinkRow) {
  const secret = deps.secretBox.open(row.clientSecretEnc);
  const [products, discount] = await Promise.all([
    serializeProductsByIds(deps.db, deps.config.baseUrl, scopeOfResource(row), row.productIds),
    row.discountId ? discountOf(deps.db, scopeOfResource(row), row.discountId) : null,
  ]);
  return checkoutLinkOut(row, {
    url: `${deps.config.baseUrl}/buy/${secret}`,
    secret,
    products,
    discount,
  });
}

async function checkProducts(deps: CheckoutDeps, organizationId: string, ids: string[]) {
  const found = new Map(
    (await productsOf(deps.db, scopeOfResource({ organizationId }), ids)).map((p) => [p.id, p]),
  );
  ids.forEach((id, i) => {
    if (!found.get(id) || found.get(id)!.isArchived)
      throw RequestValidationError.field(
        ["body", "products", i],
        "Product not found in this organization, or archived.",
      );
  });
}

async function checkDiscount(
  deps: CheckoutDeps,
  organizationId: string,
  id: string | null | undefined,
) {
  if (!id) return;
  const d = await discountOf(deps.db, scopeOfResource({ organizationId }), id);
  if (!d || d.deletedAt)
    throw RequestValidationError.field(["body", "discount_id"], "Discount not found.");
}

export async function createLink(
  deps: CheckoutDeps,
  ctx: AuthContext,
  input: z.output<typeof linkCreate>,
) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const productIds = [...new Set(input.products)];
  await checkProducts(deps, organizationId, productIds);
  await checkDiscount(deps, organizationId, input.discount_id);
  const secret = newToken("till_cl_");
  const row = await repo.insertLink(deps.db, {
    organizationId,
    clientSecretHash: hashToken(secret),
    clientSecretEnc: deps.secretBox.seal(secret),
    productIds,
    label: input.label ?? null,
    successUrl: input.success_url ?? null,
    returnUrl: input.return_url ?? null,
    allowDiscountCodes: input.allow_discount_codes,
    requireBillingAddress: input.require_billing_address,
    discountId: input.discount_id ?? null,
    metadata: input.metadata ?? {},
    paymentProcessor: deps.processor.name,
    createdAt: deps.clock.now(),
  });
  return render(deps, row);
}

async function own(deps: CheckoutDeps, ctx: AuthContext, id: string) {
  const row = await repo.findLink(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Checkout link not found.");
  return row;
}

export async function getLink(deps: CheckoutDeps, ctx: AuthContext, id: string) {
  return render(deps, await own(deps, ctx, id));
}

export async function listLinks(
  deps: CheckoutDeps,
  ctx: AuthContext,
  query: LinkListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listLinks(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    query.product_id,
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await Promise.all(rows.map((r) => render(deps, r))), total, page);
}

export async function updateLink(
  deps: CheckoutDeps,
  ctx: AuthContext,
  id: string,
  input: z.output<typeof linkUpdate>,
) {
  const row = await own(deps, ctx, id);
  if (input.products) await checkProducts(deps, row.organizationId, input.products);
  if (input.discount_id !== undefined)
    await checkDiscount(deps, row.organizationId, input.discount_id);
  const values: Partial<repo.CheckoutLinkRow> = { modifiedAt: deps.clock.now() };
  if (input.products) values.productIds = [...new Set(input.products)];
  if (input.label !== undefined) values.label = input.label;
  if (input.success_url !== undefined) values.successUrl = input.success_url;
  if (input.return_url !== undefined) values.returnUrl = input.return_url;
  if (input.allow_discount_codes != null) values.allowDiscountCodes = input.allow_discount_codes;
  if (input.require_billing_address != null)
    values.requireBillingAddress = input.require_billing_address;
  if (input.discount_id !== undefined) values.discountId = input.discount_id;
  if (input.metadata) values.metadata = input.metadata;
  return render(deps, await repo.updateLink(deps.db, id, values));
}

export async function deleteLink(deps: CheckoutDeps, ctx: AuthContext, id: string): Promise<void> {
  await own(deps, ctx, id);
  await repo.updateLink(deps.db, id, { deletedAt: deps.clock.now() });
}

/** A visit to /buy/{secret}: a fresh session for the link's products; returns the page URL to go to. */
export async function openLink(
  deps: CheckoutDeps,
  secret: string,
  query: z.output<typeof buyQuery>,
  passThrough: URLSearchParams,
): Promise<string> {
  const link = secret.startsWith("till_cl_")
    ? await repo.findBySecretHash(deps.db, hashToken(secret))
    : null;
  if (!link) throw new ResourceNotFound("This checkout link does not exist.");
  const checkout = await createCheckoutForLink(deps, link, query);
  const url = new URL(checkout.url);
  for (const [k, v] of passThrough) url.searchParams.append(k, v);
  return url.toString();
}

/** A session opened from a checkout link, with what the visitor's URL prefilled. */
async function createCheckoutForLink(
  deps: CheckoutDeps,
  link: {
    id: string;
    organizationId: string;
    productIds: string[];
    discountId: string | null;
    allowDiscountCodes: boolean;
    requireBillingAddress: boolean;
    successUrl: string | null;
    returnUrl: string | null;
    metadata: Record<string, string | number | boolean>;
  },
  prefill: {
    customer_email?: string | undefined;
    customer_name?: string | undefined;
    amount?: number | undefined;
    embed_origin?: string | undefined;
    reference_id?: string | undefined;
  },
) {
  const ctx: AuthContext = {
    kind: "organization",
    userId: null,
    organizationIds: [link.organizationId],
    scopes: new Set(["checkouts:write"]),
    tokenId: null,
  };
  return createCheckout(
    deps,
    ctx,
    {
      products: link.productIds,
      discount_id: link.discountId,
      allow_discount_codes: link.allowDiscountCodes,
      require_billing_address: link.requireBillingAddress,
      success_url: link.successUrl,
      return_url: link.returnUrl,
      metadata: {
        ...link.metadata,
        ...(prefill.reference_id ? { reference_id: prefill.reference_id } : {}),
      },
      customer_email: prefill.customer_email ?? null,
      customer_name: prefill.customer_name ?? null,
      amount: prefill.amount ?? null,
      embed_origin: prefill.embed_origin ?? null,
      is_business_customer: false,
    },
    link.id,
  );
}
