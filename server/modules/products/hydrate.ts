// Turns product rows into Polar's Product: loads prices, benefits, medias and custom fields for a
// whole page at once (one query per kind, not per product), through the owning modules' services.
import type { Db } from "../../../db/client.ts";
import { benefitsForDisplay } from "../benefits/service.ts";
import { customFieldsForDisplay } from "../custom-fields/service.ts";
import { fileReadOut, filesByIds } from "../files/service.ts";
import { metersOf, priceOut } from "./prices.ts";
import * as repo from "./repository.ts";
import { productOut, type ProductOut } from "./schemas.ts";

export async function hydrateProducts(db: Db, baseUrl: string, rows: repo.ProductRow[]): Promise<ProductOut[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const organizationIds = [...new Set(rows.map((r) => r.organizationId))];
  const [prices, benefitLinks, mediaLinks, fieldLinks] = await Promise.all([
    repo.activePricesOf(db, ids),
    repo.benefitLinksOf(db, ids),
    repo.mediaLinksOf(db, ids),
    repo.customFieldLinksOf(db, ids),
  ]);
  const [meters, benefits, files, fields] = await Promise.all([
    metersOf(db, organizationIds, prices),
    benefitsForDisplay(db, [...new Set(benefitLinks.map((l) => l.benefitId))]),
    filesByIds(db, [...new Set(mediaLinks.map((l) => l.fileId))]),
    customFieldsForDisplay(db, [...new Set(fieldLinks.map((l) => l.customFieldId))]),
  ]);
  const benefitById = new Map(benefits.map((b) => [b.id, b]));
  const fileById = new Map(files.map((f) => [f.id, f]));
  const fieldById = new Map(fields.map((f) => [f.id, f]));
  return rows.map((row) =>
    productOut(row, {
      prices: prices.filter((p) => p.productId === row.id).map((p) => priceOut(p, meters)),
      benefits: benefitLinks.filter((l) => l.productId === row.id).flatMap((l) => benefitById.get(l.benefitId) ?? []),
      medias: mediaLinks
        .filter((l) => l.productId === row.id)
        .flatMap((l) => {
          const file = fileById.get(l.fileId);
          return file ? [fileReadOut(baseUrl, file)] : [];
        }),
      attached_custom_fields: fieldLinks
        .filter((l) => l.productId === row.id)
        .flatMap((l) => {
          const field = fieldById.get(l.customFieldId);
          return field ? [{ custom_field_id: field.id, custom_field: field, order: l.order, required: l.required }] : [];
        }),
    }),
  );
}

export async function hydrateProduct(db: Db, baseUrl: string, row: repo.ProductRow): Promise<ProductOut> {
  return (await hydrateProducts(db, baseUrl, [row]))[0]!;
}
