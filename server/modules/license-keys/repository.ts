// SQL for license keys and their activations, under an OrgScope where a seller reads them; the
// public lookup by key text is named for why none applies (the key text is the credential).
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { benefitGrants, licenseKeyActivations, licenseKeys } from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";

export type LicenseKeyRow = typeof licenseKeys.$inferSelect;
export type ActivationRow = typeof licenseKeyActivations.$inferSelect;

export async function insertKey(
  db: Db,
  values: typeof licenseKeys.$inferInsert,
): Promise<LicenseKeyRow> {
  const [row] = await db.insert(licenseKeys).values(values).returning();
  return row!;
}

export async function updateKey(
  db: Db,
  id: string,
  values: Partial<typeof licenseKeys.$inferInsert>,
): Promise<LicenseKeyRow> {
  const [row] = await db.update(licenseKeys).set(values).where(eq(licenseKeys.id, id)).returning();
  return row!;
}

/** A rotated key's grant shows its new display key (the grant's properties name the key). */
export async function setGrantDisplayKey(db: Db, grantId: string, display: string): Promise<void> {
  await db
    .update(benefitGrants)
    .set({
      properties: sql`jsonb_set(${benefitGrants.properties}, '{display_key}', to_jsonb(${display}::text))`,
    })
    .where(eq(benefitGrants.id, grantId));
}

export async function keyOfGrant(db: Db, grantId: string): Promise<LicenseKeyRow | null> {
  const [row] = await db.select().from(licenseKeys).where(eq(licenseKeys.grantId, grantId));
  return row ?? null;
}

export async function findKey(db: Db, scope: OrgScope, id: string): Promise<LicenseKeyRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(licenseKeys)
    .where(and(eq(licenseKeys.id, id), inArray(licenseKeys.organizationId, [...scope])));
  return row ?? null;
}

const lockByText = async (db: Db, organizationIds: readonly string[], key: string) => {
  if (organizationIds.length === 0) return null;
  const [row] = await db
    .select()
    .from(licenseKeys)
    .where(and(inArray(licenseKeys.organizationId, [...organizationIds]), eq(licenseKeys.key, key)))
    .for("update");
  return row ?? null;
};

/** The key row by its text in the scope, locked for the validation that follows. */
export async function lockKeyByText(
  db: Db,
  scope: OrgScope,
  key: string,
): Promise<LicenseKeyRow | null> {
  return lockByText(db, scope, key);
}

/**
 * The key row by its text for the customer's software (the public customer-portal routes), locked:
 * the key text is the credential, and the organization id only says whose key it is (key texts
 * are unique per organization).
 */
export async function lockKeyByTextForKeyHolder(
  db: Db,
  organizationId: string,
  key: string,
): Promise<LicenseKeyRow | null> {
  return lockByText(db, [organizationId], key);
}

export interface KeyFilter {
  scope: OrgScope;
  customerIds?: string[] | undefined;
  benefitIds?: string[] | undefined;
  statuses?: string[] | undefined;
}

export async function listKeys(db: Db, f: KeyFilter, limit: number, offset: number) {
  if (f.scope.length === 0) return { rows: [] as LicenseKeyRow[], total: 0 };
  const conds = [inArray(licenseKeys.organizationId, [...f.scope])];
  if (f.customerIds?.length) conds.push(anyOf(licenseKeys.customerId, f.customerIds));
  if (f.benefitIds?.length) conds.push(anyOf(licenseKeys.benefitId, f.benefitIds));
  if (f.statuses?.length) conds.push(inArray(licenseKeys.status, f.statuses));
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(licenseKeys)
      .where(where)
      .orderBy(desc(licenseKeys.createdAt), asc(licenseKeys.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(licenseKeys).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function activationsOf(db: Db, licenseKeyId: string): Promise<ActivationRow[]> {
  return db
    .select()
    .from(licenseKeyActivations)
    .where(eq(licenseKeyActivations.licenseKeyId, licenseKeyId))
    .orderBy(asc(licenseKeyActivations.createdAt), asc(licenseKeyActivations.id));
}

export async function countActivations(db: Db, licenseKeyId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(licenseKeyActivations)
    .where(eq(licenseKeyActivations.licenseKeyId, licenseKeyId));
  return Number(row?.n ?? 0);
}

export async function findActivation(
  db: Db,
  licenseKeyId: string,
  id: string,
): Promise<ActivationRow | null> {
  const [row] = await db
    .select()
    .from(licenseKeyActivations)
    .where(
      and(eq(licenseKeyActivations.licenseKeyId, licenseKeyId), eq(licenseKeyActivations.id, id)),
    );
  return row ?? null;
}

export async function insertActivation(
  db: Db,
  values: typeof licenseKeyActivations.$inferInsert,
): Promise<ActivationRow> {
  const [row] = await db.insert(licenseKeyActivations).values(values).returning();
  return row!;
}

export async function deleteActivation(db: Db, id: string): Promise<void> {
  await db.delete(licenseKeyActivations).where(eq(licenseKeyActivations.id, id));
}
