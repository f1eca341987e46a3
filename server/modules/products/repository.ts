// SQL for products and their own tables (prices, and the links to benefits, medias and custom
// fields). Every read takes an OrgScope (lib/org-scope.ts) and filters by it in SQL; writes go by
// the id of a product already read under a scope.
import {
  and,
  asc,
  count,
  eq,
  exists,
  ilike,
  inArray,
  isNotNull,
  isNull,
  sql,
  type SQL,
} from "drizzle-orm";
import { type Db, rowsOf } from "../../../db/client.ts";
import {
  checkoutLinks,
  checkouts,
  discountProducts,
  orders,
  productBenefits,
  productCustomFields,
  productMedias,
  productPrices,
  products,
  subscriptions,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { metadataConditions, type MetadataFilter } from "../../lib/metadata.ts";
import { preparedQuery } from "../../lib/prepared.ts";
import { containsPattern } from "../../lib/query.ts";
import type { PRODUCT_SORTS, ProductRow } from "./schemas.ts";
import { anyOf, noneOf } from "../../../db/bulk.ts";

export type { ProductRow };
export type PriceRow = typeof productPrices.$inferSelect;

export async function insertProduct(
  db: Db,
  values: typeof products.$inferInsert,
): Promise<ProductRow> {
  const [row] = await db.insert(products).values(values).returning();
  return row!;
}

const inScope = (scope: OrgScope) => inArray(products.organizationId, [...scope]);

/** The ids among `productIds` of products in the scope, as a subquery for the child tables. */
const scopedProductIds = (db: Db, scope: OrgScope, productIds: string[]) =>
  db
    .select({ id: products.id })
    .from(products)
    .where(and(anyOf(products.id, productIds), inScope(scope)));

export async function findProduct(db: Db, scope: OrgScope, id: string): Promise<ProductRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(products)
    .where(and(eq(products.id, id), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/** The products among `ids` in the scope (unknown and out-of-scope ids left out). */
export async function findProducts(db: Db, scope: OrgScope, ids: string[]): Promise<ProductRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(products)
    .where(and(inScope(scope), anyOf(products.id, ids)));
}

export async function updateProduct(
  db: Db,
  id: string,
  values: Partial<typeof products.$inferInsert>,
): Promise<ProductRow> {
  const [row] = await db.update(products).set(values).where(eq(products.id, id)).returning();
  return row!;
}

const activePrices = (productId: SQL | typeof products.id) =>
  sql`from ${productPrices} where ${productPrices.productId} = ${productId} and not ${productPrices.isArchived}`;

// Sorting by price looks at the product's active prices: the cheapest static amount, and the
// "simplest" amount type (free, then custom, fixed, metered), as Polar orders them.
const SORTS = {
  created_at: products.createdAt,
  name: products.name,
  price_amount: sql`(select min(coalesce(${productPrices.priceAmount}, ${productPrices.minimumAmount}, 0)) ${activePrices(products.id)} and ${productPrices.amountType} in ('fixed', 'custom', 'free'))`,
  price_amount_type: sql`(select min(case ${productPrices.amountType} when 'free' then 0 when 'custom' then 1 when 'fixed' then 2 when 'metered_unit' then 3 else 4 end) ${activePrices(products.id)})`,
} as const;

export interface ProductFilter {
  ids?: string[] | undefined;
  query?: string | undefined;
  isArchived?: boolean | undefined;
  isRecurring?: boolean | undefined;
  benefitIds?: string[] | undefined;
  visibility?: string[] | undefined;
  metadata: MetadataFilter;
}

export async function listProducts(
  db: Db,
  scope: OrgScope,
  filter: ProductFilter,
  sorting: { key: (typeof PRODUCT_SORTS)[number]; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: ProductRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inScope(scope), ...metadataConditions(products.metadata, filter.metadata)];
  if (filter.ids?.length) conds.push(anyOf(products.id, filter.ids));
  if (filter.query) conds.push(ilike(products.name, containsPattern(filter.query)));
  if (filter.isArchived !== undefined) conds.push(eq(products.isArchived, filter.isArchived));
  if (filter.isRecurring !== undefined)
    conds.push(
      filter.isRecurring
        ? isNotNull(products.recurringInterval)
        : isNull(products.recurringInterval),
    );
  if (filter.visibility?.length) conds.push(inArray(products.visibility, filter.visibility));
  if (filter.benefitIds?.length) {
    conds.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(productBenefits)
          .where(
            and(
              eq(productBenefits.productId, products.id),
              anyOf(productBenefits.benefitId, filter.benefitIds),
            ),
          ),
      ),
    );
  }
  const where = and(...conds);
  const order = sorting.map((s) =>
    s.desc ? sql`${SORTS[s.key]} desc nulls last` : sql`${SORTS[s.key]} asc nulls last`,
  );
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(products)
      .where(where)
      .orderBy(...order, asc(products.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(products).where(where),
  ]);
  return { rows, total: totals!.n };
}

// Prices

export async function activePricesOf(
  db: Db,
  scope: OrgScope,
  productIds: string[],
): Promise<PriceRow[]> {
  if (productIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(productPrices)
    .where(
      and(
        inArray(productPrices.productId, scopedProductIds(db, scope, productIds)),
        eq(productPrices.isArchived, false),
      ),
    )
    .orderBy(asc(productPrices.createdAt), asc(productPrices.position), asc(productPrices.id));
}

export async function insertPrices(
  db: Db,
  rows: (typeof productPrices.$inferInsert)[],
): Promise<void> {
  if (rows.length > 0) await db.insert(productPrices).values(rows);
}

/** Archives the product's active prices except those kept; archived rows are never changed again. */
export async function archivePricesExcept(
  db: Db,
  productId: string,
  keepIds: string[],
  now: Date,
): Promise<void> {
  const conds = [eq(productPrices.productId, productId), eq(productPrices.isArchived, false)];
  if (keepIds.length > 0) conds.push(noneOf(productPrices.id, keepIds));
  await db
    .update(productPrices)
    .set({ isArchived: true, modifiedAt: now })
    .where(and(...conds));
}

/** A product's own rows for display: the product, its active prices in order, and its link rows. */
export interface ProductParts {
  row: ProductRow;
  prices: PriceRow[];
  benefitLinks: { productId: string; benefitId: string; order: number }[];
  mediaLinks: { productId: string; fileId: string; order: number }[];
  fieldLinks: { productId: string; customFieldId: string; order: number; required: boolean }[];
}

type Links = Pick<ProductParts, "benefitLinks" | "mediaLinks" | "fieldLinks">;

/**
 * Products with their active prices and link rows in one statement: one row per active price (a
 * left join, so a product without prices still comes back), the links aggregated as JSON per
 * product; only the scope's products. Checkout reads run it on every create, so it is prepared once
 * per number of ids and of organizations (see lib/prepared.ts).
 */
export async function productsWithParts(
  db: Db,
  scope: OrgScope,
  ids: string[],
): Promise<ProductParts[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  const query = preparedQuery(db, `products.withParts:${ids.length}:${scope.length}`, (d) =>
    productsWithPartsQuery(d, ids.length, scope.length),
  );
  const params: Record<string, string> = {};
  for (const [i, id] of ids.entries()) params[`id${i}`] = id;
  for (const [i, org] of scope.entries()) params[`org${i}`] = org;
  const rows = await query.execute(params);
  const byId = new Map<string, ProductParts>();
  for (const r of rows) {
    let parts = byId.get(r.product.id);
    if (!parts) {
      const l = (typeof r.links === "string" ? JSON.parse(r.links) : r.links) as Links;
      parts = { row: r.product, prices: [], ...l };
      byId.set(r.product.id, parts);
    }
    if (r.price) parts.prices.push(r.price);
  }
  return [...byId.values()];
}

function productsWithPartsQuery(db: Db, count: number, orgCount: number) {
  const links = sql<Links | string>`json_build_object(
    'benefitLinks', coalesce((select json_agg(json_build_object('productId', ${productBenefits.productId}, 'benefitId', ${productBenefits.benefitId}, 'order', ${productBenefits.order}) order by ${productBenefits.order}) from ${productBenefits} where ${productBenefits.productId} = ${products.id}), '[]'),
    'mediaLinks', coalesce((select json_agg(json_build_object('productId', ${productMedias.productId}, 'fileId', ${productMedias.fileId}, 'order', ${productMedias.order}) order by ${productMedias.order}) from ${productMedias} where ${productMedias.productId} = ${products.id}), '[]'),
    'fieldLinks', coalesce((select json_agg(json_build_object('productId', ${productCustomFields.productId}, 'customFieldId', ${productCustomFields.customFieldId}, 'order', ${productCustomFields.order}, 'required', ${productCustomFields.required}) order by ${productCustomFields.order}) from ${productCustomFields} where ${productCustomFields.productId} = ${products.id}), '[]')
  )`;
  const placeholders = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => sql.placeholder(`${prefix}${i}`));
  const conds = [
    inArray(products.id, placeholders("id", count)),
    inArray(products.organizationId, placeholders("org", orgCount)),
  ];
  return db
    .select({ product: products, price: productPrices, links })
    .from(products)
    .leftJoin(
      productPrices,
      and(eq(productPrices.productId, products.id), eq(productPrices.isArchived, false)),
    )
    .where(and(...conds))
    .orderBy(asc(productPrices.createdAt), asc(productPrices.position), asc(productPrices.id))
    .prepare(`products_with_parts_${count}_${orgCount}`);
}

// Links

export async function benefitLinksOf(db: Db, scope: OrgScope, productIds: string[]) {
  if (productIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(productBenefits)
    .where(inArray(productBenefits.productId, scopedProductIds(db, scope, productIds)))
    .orderBy(asc(productBenefits.order));
}

export async function setBenefits(db: Db, productId: string, benefitIds: string[]): Promise<void> {
  await db.delete(productBenefits).where(eq(productBenefits.productId, productId));
  if (benefitIds.length > 0)
    await db
      .insert(productBenefits)
      .values(benefitIds.map((benefitId, order) => ({ productId, benefitId, order })));
}

export async function mediaLinksOf(db: Db, scope: OrgScope, productIds: string[]) {
  if (productIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(productMedias)
    .where(inArray(productMedias.productId, scopedProductIds(db, scope, productIds)))
    .orderBy(asc(productMedias.order));
}

export async function setMedias(db: Db, productId: string, fileIds: string[]): Promise<void> {
  await db.delete(productMedias).where(eq(productMedias.productId, productId));
  if (fileIds.length > 0)
    await db
      .insert(productMedias)
      .values(fileIds.map((fileId, order) => ({ productId, fileId, order })));
}

export async function customFieldLinksOf(db: Db, scope: OrgScope, productIds: string[]) {
  if (productIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(productCustomFields)
    .where(inArray(productCustomFields.productId, scopedProductIds(db, scope, productIds)))
    .orderBy(asc(productCustomFields.order));
}

export async function setCustomFields(
  db: Db,
  productId: string,
  fields: { customFieldId: string; required: boolean }[],
): Promise<void> {
  await db.delete(productCustomFields).where(eq(productCustomFields.productId, productId));
  if (fields.length > 0) {
    await db.insert(productCustomFields).values(
      fields.map((f, order) => ({
        productId,
        customFieldId: f.customFieldId,
        required: f.required,
        order,
      })),
    );
  }
}

export async function findPrice(db: Db, scope: OrgScope, id: string): Promise<PriceRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select({ price: productPrices })
    .from(productPrices)
    .innerJoin(products, eq(products.id, productPrices.productId))
    .where(and(eq(productPrices.id, id), inScope(scope)))
    .limit(1);
  return row?.price ?? null;
}

/**
 * Whether anything refers to the product: an order, a subscription (or one scheduled to move to
 * it), a checkout or checkout link offering it, or a discount restricted to it. Only a product of
 * the scope: what refers to it is of its organization.
 */
export async function productInUse(db: Db, scope: OrgScope, id: string): Promise<boolean> {
  if (scope.length === 0) return false;
  const [row] = rowsOf<{ used: boolean }>(
    await db.execute(sql`select
    exists (select 1 from ${products} where ${products.id} = ${id} and ${inScope(scope)}) and (
    exists (select 1 from ${orders} where ${orders.productId} = ${id})
    or exists (select 1 from ${subscriptions} where ${subscriptions.productId} = ${id}
      or ${subscriptions.pendingUpdate} ->> 'productId' = ${id})
    or exists (select 1 from ${checkouts} where ${checkouts.productId} = ${id}
      or ${id}::uuid = any(${checkouts.productIds}))
    or exists (select 1 from ${checkoutLinks} where ${id}::uuid = any(${checkoutLinks.productIds}))
    or exists (select 1 from ${discountProducts} where ${discountProducts.productId} = ${id}))
    as used`),
  );
  return row?.used === true;
}

/** Deletes the product; its prices and links to benefits, medias and fields go with it. */
export async function deleteProduct(db: Db, id: string): Promise<void> {
  await db.delete(products).where(eq(products.id, id));
}
