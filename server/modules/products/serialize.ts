// Turns product rows into Polar's Product: prices, benefits, medias and custom fields for a whole page
// at once (one query per kind, not per product), through the owning modules' services. Products read
// by id come with their prices and link rows in one statement (productsWithParts); only benefits,
// files, custom fields and meters that are actually linked cost one more query each.
import type { Db } from "../../../db/client.ts";
import { serializeBenefitsByIds } from "../benefits/service.ts";
import { serializeCustomFieldsByIds } from "../custom-fields/service.ts";
import { productMediaOut } from "../files/schemas.ts";
import { filesByIds } from "../files/service.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { metersOf, priceOut } from "./prices.ts";
import * as repo from "./repository.ts";
import { productOut, type ProductOut } from "./schemas.ts";

/** A product as shown, with the price rows it was built from (pricing needs the rows). */
export interface LoadedProduct {
  row: repo.ProductRow;
  prices: repo.PriceRow[];
  out: ProductOut;
}

export async function serializeProducts(
  db: Db,
  baseUrl: string,
  rows: repo.ProductRow[],
): Promise<ProductOut[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // The rows were read under a scope; their own parts are of their organizations.
  const scope = scopeOfResource(...rows);
  const [prices, benefitLinks, mediaLinks, fieldLinks] = await Promise.all([
    repo.activePricesOf(db, scope, ids),
    repo.benefitLinksOf(db, scope, ids),
    repo.mediaLinksOf(db, scope, ids),
    repo.customFieldLinksOf(db, scope, ids),
  ]);
  const parts = rows.map((row) => ({
    row,
    prices: prices.filter((p) => p.productId === row.id),
    benefitLinks: benefitLinks.filter((l) => l.productId === row.id),
    mediaLinks: mediaLinks.filter((l) => l.productId === row.id),
    fieldLinks: fieldLinks.filter((l) => l.productId === row.id),
  }));
  return (await assemble(db, baseUrl, parts)).map((p) => p.out);
}

export async function serializeProduct(
  db: Db,
  baseUrl: string,
  row: repo.ProductRow,
): Promise<ProductOut> {
  return (await serializeProducts(db, baseUrl, [row]))[0]!;
}

/** Products by id in the scope, in `ids` order (unknown and out-of-scope ids left out). */
export async function loadProducts(
  db: Db,
  baseUrl: string,
  scope: OrgScope,
  ids: string[],
): Promise<LoadedProduct[]> {
  const loaded = await assemble(db, baseUrl, await repo.productsWithParts(db, scope, ids));
  const byId = new Map(loaded.map((p) => [p.row.id, p]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

async function assemble(
  db: Db,
  baseUrl: string,
  parts: repo.ProductParts[],
): Promise<LoadedProduct[]> {
  if (parts.length === 0) return [];
  const all = <T>(pick: (p: repo.ProductParts) => T[]) => parts.flatMap(pick);
  const [meters, benefits, files, fields] = await Promise.all([
    metersOf(
      db,
      scopeOfResource(...parts.map((p) => p.row)),
      all((p) => p.prices),
    ),
    serializeBenefitsByIds(db, scopeOfResource(...parts.map((p) => p.row)), [
      ...new Set(all((p) => p.benefitLinks).map((l) => l.benefitId)),
    ]),
    filesByIds(db, scopeOfResource(...parts.map((p) => p.row)), [
      ...new Set(all((p) => p.mediaLinks).map((l) => l.fileId)),
    ]),
    serializeCustomFieldsByIds(db, scopeOfResource(...parts.map((p) => p.row)), [
      ...new Set(all((p) => p.fieldLinks).map((l) => l.customFieldId)),
    ]),
  ]);
  const benefitById = new Map(benefits.map((b) => [b.id, b]));
  const fileById = new Map(files.map((f) => [f.id, f]));
  const fieldById = new Map(fields.map((f) => [f.id, f]));
  return parts.map((p) => ({
    row: p.row,
    prices: p.prices,
    out: productOut(p.row, {
      prices: p.prices.map((price) => priceOut(price, meters)),
      benefits: p.benefitLinks.flatMap((l) => benefitById.get(l.benefitId) ?? []),
      medias: p.mediaLinks.flatMap((l) => {
        const file = fileById.get(l.fileId);
        return file ? [productMediaOut(baseUrl, file)] : [];
      }),
      attached_custom_fields: p.fieldLinks.flatMap((l) => {
        const field = fieldById.get(l.customFieldId);
        return field
          ? [
              {
                custom_field_id: field.id,
                custom_field: field,
                order: l.order,
                required: l.required,
              },
            ]
          : [];
      }),
    }),
  }));
}
