// Products: create, list, read and update a seller's catalog (the benefits a product grants are
// set in product-benefits.ts).
// Prices are never edited in place: an update archives the price rows not passed back as {id} and
// inserts the new ones, so orders keep pointing at what was paid. Every change records
// product.created / product.updated in the same transaction.
import { inTransaction, type Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import type { MetadataFilter } from "../../lib/metadata.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { pgErrorCode } from "../../lib/db-errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { customFieldsOf } from "../custom-fields/service.ts";
import { usableFiles } from "../files/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { serializeProduct, serializeProducts, loadProducts } from "./serialize.ts";
import { checkPriceSet, newPriceRows, parsePriceItems, type PriceCreate } from "./prices.ts";
import { checkMeterInterval, checkRecurringFields } from "./recurring.ts";
import * as repo from "./repository.ts";
import type { ProductCreate, ProductListQuery, ProductUpdate } from "./schemas.ts";

export interface ProductDeps {
  db: Db;
  clock: Clock;
  /** Public base URL, for the media files' public_url. */
  baseUrl: string;
  /** Removing benefits from a product queues the revocation of the grants it gave. */
  queue?: QueueHandle | null;
}

async function checkMedias(db: Db, organizationId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = new Set(
    (await usableFiles(db, scopeOfResource({ organizationId }), unique, "product_media")).map(
      (f) => f.id,
    ),
  );
  const bad = ids.findIndex((id) => !found.has(id));
  if (bad >= 0)
    throw RequestValidationError.field(
      ["body", "medias", bad],
      "File not found, not uploaded yet, or not a product_media file of this organization.",
    );
  return unique;
}

async function checkCustomFields(
  db: Db,
  organizationId: string,
  items: { custom_field_id: string; required: boolean }[],
) {
  const found = new Set(
    (
      await customFieldsOf(
        db,
        scopeOfResource({ organizationId }),
        items.map((i) => i.custom_field_id),
      )
    ).map((f) => f.id),
  );
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!found.has(item.custom_field_id))
      throw RequestValidationError.field(
        ["body", "attached_custom_fields", i, "custom_field_id"],
        "Custom field not found in this organization.",
      );
    if (seen.has(item.custom_field_id))
      throw RequestValidationError.field(
        ["body", "attached_custom_fields", i, "custom_field_id"],
        "This custom field is attached twice.",
      );
    seen.add(item.custom_field_id);
  });
  return items.map((i) => ({ customFieldId: i.custom_field_id, required: i.required }));
}

export async function createProduct(deps: ProductDeps, ctx: AuthContext, input: ProductCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const recurring = input.recurring_interval != null;
  checkRecurringFields(input, recurring);
  checkMeterInterval(input, recurring);
  const prices = input.prices.map((price, i) => ({ price, loc: ["body", "prices", i] }));
  checkPriceSet(
    prices.map(({ price, loc }) => ({
      loc,
      amountType: price.amount_type,
      currency: price.price_currency,
      meterId: meterIdOf(price),
    })),
    recurring,
    ["body", "prices"],
  );
  const medias = await checkMedias(deps.db, organizationId, input.medias ?? []);
  const fields = await checkCustomFields(
    deps.db,
    organizationId,
    input.attached_custom_fields ?? [],
  );
  const now = deps.clock.now();
  const priceRows = await newPriceRows(deps.db, organizationId, "", prices, now);

  return inTransaction(deps.db, async (tx) => {
    const row = await repo.insertProduct(tx, {
      organizationId,
      name: input.name,
      description: input.description ?? null,
      visibility: input.visibility,
      recurringInterval: input.recurring_interval ?? null,
      recurringIntervalCount: recurring ? (input.recurring_interval_count ?? 1) : null,
      trialInterval: input.trial_interval ?? null,
      trialIntervalCount: input.trial_interval_count ?? null,
      meterInterval: input.meter_interval ?? null,
      meterIntervalCount: input.meter_interval == null ? null : (input.meter_interval_count ?? 1),
      metadata: input.metadata ?? {},
      createdAt: now,
    });
    await repo.insertPrices(
      tx,
      priceRows.map((p) => ({ ...p, productId: row.id })),
    );
    await repo.setMedias(tx, row.id, medias);
    await repo.setCustomFields(tx, row.id, fields);
    const data = await serializeProduct(tx, deps.baseUrl, row);
    await recordEvent(tx, deps.clock, { organizationId, type: "product.created", data });
    return data;
  });
}

const meterIdOf = (price: PriceCreate) =>
  price.amount_type === "metered_unit" ? price.meter_id : null;

export async function listProducts(
  deps: ProductDeps,
  ctx: AuthContext,
  query: ProductListQuery,
  metadata: MetadataFilter,
  page: Pagination,
) {
  const { rows, total } = await repo.listProducts(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    {
      ids: query.id,
      query: query.query,
      isArchived: query.is_archived,
      isRecurring: query.is_recurring,
      benefitIds: query.benefit_id,
      visibility: query.visibility,
      metadata,
    },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeProducts(deps.db, deps.baseUrl, rows), total, page);
}

export async function ownProduct(deps: ProductDeps, ctx: AuthContext, id: string) {
  const row = await repo.findProduct(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Product not found.");
  return row;
}

export class ProductNotDeletable extends ApiError {
  constructor() {
    super(
      409,
      "ProductNotDeletable",
      "Product is in use (orders, subscriptions, checkouts or discounts) and cannot be deleted; archive it instead.",
    );
  }
}

/** Polar's DELETE: only a product nothing refers to; one in use can only be archived. */
export async function deleteProduct(deps: ProductDeps, ctx: AuthContext, id: string) {
  const row = await ownProduct(deps, ctx, id);
  organizationForWrite(ctx, row.organizationId);
  try {
    await inTransaction(deps.db, async (tx) => {
      if (await repo.productInUse(tx, scopeOfResource(row), row.id))
        throw new ProductNotDeletable();
      await repo.deleteProduct(tx, row.id);
    });
  } catch (err) {
    // A checkout or order made for it meanwhile holds a foreign key to it.
    if (pgErrorCode(err) === "23503") throw new ProductNotDeletable();
    throw err;
  }
}

export async function getProduct(deps: ProductDeps, ctx: AuthContext, id: string) {
  return serializeProduct(deps.db, deps.baseUrl, await ownProduct(deps, ctx, id));
}

export async function updateProduct(
  deps: ProductDeps,
  ctx: AuthContext,
  id: string,
  input: ProductUpdate,
) {
  const current = await ownProduct(deps, ctx, id);
  const organizationId = current.organizationId;
  const recurring = current.recurringInterval !== null;
  if (input.recurring_interval != null && input.recurring_interval !== current.recurringInterval) {
    throw RequestValidationError.field(
      ["body", "recurring_interval"],
      recurring
        ? "The recurring interval of a product cannot be changed; create a new product."
        : "A one-time product cannot become recurring; create a new product.",
    );
  }
  if (
    input.recurring_interval_count != null &&
    input.recurring_interval_count !== current.recurringIntervalCount
  ) {
    throw RequestValidationError.field(
      ["body", "recurring_interval_count"],
      "The recurring interval count of a product cannot be changed; create a new product.",
    );
  }
  const trial = {
    trial_interval:
      input.trial_interval === undefined ? current.trialInterval : input.trial_interval,
    trial_interval_count:
      input.trial_interval_count === undefined
        ? current.trialIntervalCount
        : input.trial_interval_count,
  };
  checkRecurringFields(trial, recurring);

  const now = deps.clock.now();
  let priceChange: { keep: string[]; rows: Awaited<ReturnType<typeof newPriceRows>> } | null = null;
  if (input.prices) {
    const items = parsePriceItems(input.prices, ["body", "prices"]);
    const active = new Map(
      (await repo.activePricesOf(deps.db, scopeOfResource(current), [id])).map((p) => [p.id, p]),
    );
    const keep: string[] = [];
    const set = items.map((item, i) => {
      const loc = ["body", "prices", i];
      if ("existing" in item) {
        const price = active.get(item.existing);
        if (!price)
          throw RequestValidationError.field(
            [...loc, "id"],
            "This is not an active price of the product.",
          );
        keep.push(price.id);
        return {
          loc,
          amountType: price.amountType,
          currency: price.priceCurrency,
          meterId: price.meterId,
        };
      }
      return {
        loc,
        amountType: item.create.amount_type,
        currency: item.create.price_currency,
        meterId: meterIdOf(item.create),
      };
    });
    checkPriceSet(set, recurring, ["body", "prices"]);
    const created = items.flatMap((item, i) =>
      "create" in item ? [{ price: item.create, loc: ["body", "prices", i] }] : [],
    );
    priceChange = { keep, rows: await newPriceRows(deps.db, organizationId, id, created, now) };
  }
  const medias = input.medias ? await checkMedias(deps.db, organizationId, input.medias) : null;
  const fields = input.attached_custom_fields
    ? await checkCustomFields(deps.db, organizationId, input.attached_custom_fields)
    : null;

  const values: Parameters<typeof repo.updateProduct>[2] = { modifiedAt: now };
  if (input.name) values.name = input.name;
  if (input.description !== undefined) values.description = input.description;
  if (input.visibility) values.visibility = input.visibility;
  if (input.is_archived != null) values.isArchived = input.is_archived;
  if (input.metadata) values.metadata = input.metadata;
  if (input.trial_interval !== undefined) values.trialInterval = input.trial_interval;
  if (input.trial_interval_count !== undefined)
    values.trialIntervalCount = input.trial_interval_count;

  return inTransaction(deps.db, async (tx) => {
    const row = await repo.updateProduct(tx, id, values);
    if (priceChange) {
      await repo.archivePricesExcept(tx, id, priceChange.keep, now);
      await repo.insertPrices(tx, priceChange.rows);
    }
    if (medias) await repo.setMedias(tx, id, medias);
    if (fields) await repo.setCustomFields(tx, id, fields);
    const data = await serializeProduct(tx, deps.baseUrl, row);
    await recordEvent(tx, deps.clock, { organizationId, type: "product.updated", data });
    return data;
  });
}

// For other modules.

// For other modules. Each read takes the scope its caller holds (lib/org-scope.ts).

/** The products among `ids` in the scope (rows, not shown). */
export function productsOf(db: Db, scope: OrgScope, ids: string[]) {
  return repo.findProducts(db, scope, ids);
}

/** Products with everything Polar's Product shows (prices, benefits, medias, custom fields), in `ids` order. */
export async function serializeProductsByIds(
  db: Db,
  baseUrl: string,
  scope: OrgScope,
  ids: string[],
) {
  return (await loadProducts(db, baseUrl, scope, ids)).map((p) => p.out);
}

/** The scope's products among `ids` as shown, each with its active price rows, in `ids` order. */
export function productsWithPrices(db: Db, baseUrl: string, scope: OrgScope, ids: string[]) {
  return loadProducts(db, baseUrl, scope, ids);
}

/** A product's active prices, and any price row by id (archived ones too: orders keep them). */
export function activePrices(db: Db, scope: OrgScope, productIds: string[]) {
  return repo.activePricesOf(db, scope, productIds);
}

export function priceById(db: Db, scope: OrgScope, id: string) {
  return repo.findPrice(db, scope, id);
}
