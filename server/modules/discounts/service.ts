// Discounts: create, list, read, update and soft-delete. A create and an update end in the same
// state checks, so an update can never reach a discount that could not have been created.
import { inTransaction, type Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { isUniqueViolation } from "../../lib/db-errors.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { productsOf } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import {
  discountOut,
  type DiscountCreate,
  type DiscountListQuery,
  type DiscountUpdate,
} from "./schemas.ts";

export interface DiscountDeps {
  db: Db;
  clock: Clock;
}

/** A discount as stored, before it is written. */
interface DiscountState {
  type: "fixed" | "percentage";
  name: string;
  code: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  maxRedemptions: number | null;
  maxRedemptionsPerCustomer: number | null;
  duration: "once" | "forever" | "repeating";
  durationInMonths: number | null;
  amount: number | null;
  currency: string | null;
  amounts: Record<string, number> | null;
  basisPoints: number | null;
  metadata: Record<string, string | number | boolean>;
}

const field = (name: string, msg: string) => RequestValidationError.field(["body", name], msg);

function checkState(s: DiscountState, redemptionsCount: number): void {
  if (s.type === "fixed") {
    if (s.amount === null && !s.amounts)
      throw field("amount", "A fixed discount needs an amount (and its currency).");
    if (s.amount === null && s.amounts) {
      if (Object.keys(s.amounts).length === 0)
        throw field("amounts", "amounts needs the amount in at least one currency.");
      const currency = s.currency ?? Object.keys(s.amounts)[0]!;
      if (s.amounts[currency] === undefined)
        throw field("amounts", `amounts has no entry for the currency ${currency}.`);
    }
  } else if (s.basisPoints === null) {
    throw field("basis_points", "A percentage discount needs basis_points (1 to 10000).");
  }
  if (s.duration === "repeating" && s.durationInMonths === null)
    throw field("duration_in_months", "Required when duration is repeating.");
  if (s.duration !== "repeating" && s.durationInMonths !== null)
    throw field("duration_in_months", "Only a repeating discount has duration_in_months.");
  if (s.startsAt && s.endsAt && s.endsAt <= s.startsAt)
    throw field("ends_at", "ends_at must be after starts_at.");
  if (s.maxRedemptions !== null && s.maxRedemptions < redemptionsCount) {
    throw field(
      "max_redemptions",
      `The discount has already been redeemed ${redemptionsCount} times.`,
    );
  }
}

function toRow(s: DiscountState) {
  const fixed = s.type === "fixed";
  const currency = fixed
    ? (s.currency ?? (s.amount === null && s.amounts ? Object.keys(s.amounts)[0]! : "usd"))
    : null;
  return {
    type: s.type,
    name: s.name,
    code: s.code,
    startsAt: s.startsAt,
    endsAt: s.endsAt,
    maxRedemptions: s.maxRedemptions,
    maxRedemptionsPerCustomer: s.maxRedemptionsPerCustomer,
    duration: s.duration,
    durationInMonths: s.durationInMonths,
    amount: fixed ? (s.amount ?? s.amounts![currency!]!) : null,
    currency,
    amounts: fixed ? s.amounts : null,
    basisPoints: fixed ? null : s.basisPoints,
    metadata: s.metadata,
  };
}

const codeTakenError = () =>
  field(
    "code",
    "A discount with this code already exists in the organization (codes ignore case).",
  );

async function checkProducts(db: Db, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(
    (await productsOf(db, scopeOfResource({ organizationId }), ids)).map((p) => p.id),
  );
  const bad = ids.findIndex((id) => !found.has(id));
  if (bad >= 0)
    throw RequestValidationError.field(
      ["body", "products", bad],
      "Product not found in this organization.",
    );
  return [...new Set(ids)];
}

async function render(db: Db, rows: repo.DiscountRow[]) {
  const links = await repo.productLinksOf(
    db,
    scopeOfResource(...rows),
    rows.map((r) => r.id),
  );
  const products = new Map(
    (
      await productsOf(db, scopeOfResource(...rows), [...new Set(links.map((l) => l.productId))])
    ).map((p) => [p.id, p]),
  );
  return rows.map((row) =>
    discountOut(
      row,
      links.filter((l) => l.discountId === row.id).flatMap((l) => products.get(l.productId) ?? []),
    ),
  );
}

export async function createDiscount(deps: DiscountDeps, ctx: AuthContext, input: DiscountCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const state: DiscountState = {
    type: input.type,
    name: input.name,
    code: input.code ?? null,
    startsAt: input.starts_at ?? null,
    endsAt: input.ends_at ?? null,
    maxRedemptions: input.max_redemptions ?? null,
    maxRedemptionsPerCustomer: input.max_redemptions_per_customer ?? null,
    duration: input.duration,
    durationInMonths: input.duration_in_months ?? null,
    amount: input.type === "fixed" ? (input.amount ?? null) : null,
    currency: input.type === "fixed" ? (input.currency ?? null) : null,
    amounts: input.type === "fixed" ? (input.amounts ?? null) : null,
    basisPoints: input.type === "percentage" ? input.basis_points : null,
    metadata: input.metadata ?? {},
  };
  checkState(state, 0);
  if (
    state.code &&
    (await repo.codeTaken(deps.db, scopeOfResource({ organizationId }), state.code))
  )
    throw codeTakenError();
  const productIds = await checkProducts(deps.db, organizationId, input.products ?? []);
  try {
    return await inTransaction(deps.db, async (tx) => {
      const row = await repo.insertDiscount(tx, {
        organizationId,
        ...toRow(state),
        createdAt: deps.clock.now(),
      });
      await repo.setProducts(tx, row.id, productIds);
      const data = (await render(tx, [row]))[0]!;
      await recordEvent(tx, deps.clock, { organizationId, type: "discount.created", data });
      return data;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw codeTakenError();
    throw err;
  }
}

export async function listDiscounts(
  deps: DiscountDeps,
  ctx: AuthContext,
  query: DiscountListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listDiscounts(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    query.query,
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await render(deps.db, rows), total, page);
}

async function ownDiscount(deps: DiscountDeps, ctx: AuthContext, id: string) {
  const row = await repo.findDiscount(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Discount not found.");
  return row;
}

export async function getDiscount(deps: DiscountDeps, ctx: AuthContext, id: string) {
  return (await render(deps.db, [await ownDiscount(deps, ctx, id)]))[0]!;
}

/** Absent keys keep the current value; an explicit null clears the nullable ones. */
const keep = <T>(given: T | null | undefined, current: T | null): T | null =>
  given === undefined ? current : given;

export async function updateDiscount(
  deps: DiscountDeps,
  ctx: AuthContext,
  id: string,
  input: DiscountUpdate,
) {
  const current = await ownDiscount(deps, ctx, id);
  // As Polar's DiscountService.update: what a discount is and how long it lasts are fixed at
  // creation (an explicit null duration is a change too); the other type's fields are ignored.
  if (input.duration !== undefined && input.duration !== current.duration)
    throw field("duration", "Duration cannot be changed.");
  if (input.type != null && input.type !== current.type)
    throw field("type", "Type cannot be changed.");
  const duration = current.duration as DiscountState["duration"];
  const state: DiscountState = {
    type: current.type as DiscountState["type"],
    name: input.name ?? current.name,
    code: keep(input.code, current.code),
    startsAt: keep(input.starts_at, current.startsAt),
    endsAt: keep(input.ends_at, current.endsAt),
    maxRedemptions: keep(input.max_redemptions, current.maxRedemptions),
    maxRedemptionsPerCustomer: keep(
      input.max_redemptions_per_customer,
      current.maxRedemptionsPerCustomer,
    ),
    duration,
    durationInMonths:
      duration === "repeating"
        ? keep(input.duration_in_months, current.durationInMonths)
        : (input.duration_in_months ?? null),
    amount: input.amount ?? current.amount,
    currency: input.currency ?? current.currency,
    amounts: input.amounts ?? current.amounts,
    basisPoints: input.basis_points ?? current.basisPoints,
    metadata: input.metadata ?? current.metadata,
  };
  checkState(state, current.redemptionsCount);
  const next = toRow(state);
  if (current.redemptionsCount > 0) {
    // Customers already hold this discount: what it is worth and for how long stays as sold.
    for (const [key, wire] of [
      ["amount", "amount"],
      ["currency", "currency"],
      ["basisPoints", "basis_points"],
      ["durationInMonths", "duration_in_months"],
    ] as const) {
      if (next[key] !== current[key])
        throw field(
          wire,
          "This cannot change once the discount has been redeemed; create a new discount instead.",
        );
    }
  }
  if (
    next.code &&
    next.code.toLowerCase() !== current.code?.toLowerCase() &&
    (await repo.codeTaken(deps.db, scopeOfResource(current), next.code, id))
  ) {
    throw codeTakenError();
  }
  const productIds = input.products
    ? await checkProducts(deps.db, current.organizationId, input.products)
    : null;
  try {
    return await inTransaction(deps.db, async (tx) => {
      const row = await repo.updateDiscount(tx, id, { ...next, modifiedAt: deps.clock.now() });
      if (productIds) await repo.setProducts(tx, id, productIds);
      const data = (await render(tx, [row]))[0]!;
      await recordEvent(tx, deps.clock, {
        organizationId: current.organizationId,
        type: "discount.updated",
        data,
      });
      return data;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw codeTakenError();
    throw err;
  }
}

/** Soft delete: checkouts and orders that used the discount keep pointing at it. */
export async function deleteDiscount(
  deps: DiscountDeps,
  ctx: AuthContext,
  id: string,
): Promise<void> {
  const current = await ownDiscount(deps, ctx, id);
  const now = deps.clock.now();
  await inTransaction(deps.db, async (tx) => {
    const row = await repo.updateDiscount(tx, id, { deletedAt: now, modifiedAt: now });
    await recordEvent(tx, deps.clock, {
      organizationId: current.organizationId,
      type: "discount.deleted",
      data: (await render(tx, [row]))[0]!,
    });
  });
}

// For checkouts, orders and subscriptions: the discount rows they price with, the products a
// discount is restricted to, and the atomic redemption taken on confirm and given back when the
// payment fails. Each read takes the scope its caller holds (lib/org-scope.ts).

/** A discount in the scope by id, deleted ones too (what was sold keeps pointing at it). */
export function discountOf(db: Db, scope: OrgScope, id: string) {
  return repo.findDiscountEvenDeleted(db, scope, id);
}

/** The live discount in the scope with this code. */
export function discountByCode(db: Db, scope: OrgScope, code: string) {
  return repo.findByCode(db, scope, code);
}

export async function restrictedProductIds(
  db: Db,
  scope: OrgScope,
  discountId: string,
): Promise<string[]> {
  return (await repo.productLinksOf(db, scope, [discountId])).map((l) => l.productId);
}

/** Why a discount cannot apply to this product now, or null when it can. */
export function discountRefusal(
  discount: repo.DiscountRow,
  productId: string,
  restrictedTo: string[],
  currency: string,
  now: Date,
): string | null {
  if (discount.deletedAt) return "This discount no longer exists.";
  if (discount.startsAt && discount.startsAt > now) return "This discount is not active yet.";
  if (discount.endsAt && discount.endsAt <= now) return "This discount has ended.";
  if (discount.maxRedemptions !== null && discount.redemptionsCount >= discount.maxRedemptions)
    return "This discount has been fully redeemed.";
  if (restrictedTo.length > 0 && !restrictedTo.includes(productId))
    return "This discount does not apply to this product.";
  if (discount.type === "fixed" && discount.currency && discount.currency !== currency)
    return "This discount is in another currency.";
  return null;
}

export const redeemDiscount = repo.redeem;
export const releaseDiscount = repo.release;

export async function serializeDiscount(db: Db, row: repo.DiscountRow) {
  return (await render(db, [row]))[0]!;
}
