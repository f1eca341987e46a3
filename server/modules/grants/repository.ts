// SQL for benefit grants, every read of them under an OrgScope but the two named for why none
// applies (a job's grant, a signed download URL's grant), and the lookups the worker needs (the
// benefits a product grants, the customer's linked Discord/GitHub account).
import {
  and,
  asc,
  count,
  countDistinct,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  ne,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import {
  account,
  benefitGrants,
  benefits,
  fileDownloads,
  orders,
  productBenefits,
  subscriptions,
  user,
} from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";

export type GrantRow = typeof benefitGrants.$inferSelect;

const inScope = (scope: OrgScope) => inArray(benefitGrants.organizationId, [...scope]);

export async function benefitsOfProduct(
  db: Db,
  scope: OrgScope,
  productId: string,
): Promise<{ id: string; organizationId: string; type: string }[]> {
  if (scope.length === 0) return [];
  return db
    .select({
      id: productBenefits.benefitId,
      organizationId: benefits.organizationId,
      type: benefits.type,
    })
    .from(productBenefits)
    .innerJoin(benefits, eq(benefits.id, productBenefits.benefitId))
    .where(
      and(
        eq(productBenefits.productId, productId),
        isNull(benefits.deletedAt),
        inArray(benefits.organizationId, [...scope]),
      ),
    )
    .orderBy(asc(productBenefits.order));
}

/** The customer's grant of a benefit within one purchase (`scopeId`), locked. */
export async function findByScope(
  db: Db,
  scope: OrgScope,
  customerId: string,
  benefitId: string,
  scopeId: string,
): Promise<GrantRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(benefitGrants)
    .where(
      and(
        eq(benefitGrants.customerId, customerId),
        eq(benefitGrants.benefitId, benefitId),
        eq(benefitGrants.scopeId, scopeId),
        inScope(scope),
      ),
    )
    .for("update");
  return row ?? null;
}

export async function insertGrant(
  db: Db,
  values: typeof benefitGrants.$inferInsert,
): Promise<GrantRow> {
  const [row] = await db.insert(benefitGrants).values(values).returning();
  return row!;
}

export async function updateGrant(
  db: Db,
  id: string,
  values: Partial<typeof benefitGrants.$inferInsert>,
): Promise<GrantRow> {
  const [row] = await db
    .update(benefitGrants)
    .set(values)
    .where(eq(benefitGrants.id, id))
    .returning();
  return row!;
}

/** A grant in the scope, locked for a write. */
export async function lockGrant(db: Db, scope: OrgScope, id: string): Promise<GrantRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(benefitGrants)
    .where(and(eq(benefitGrants.id, id), inScope(scope)))
    .for("update");
  return row ?? null;
}

const byIdAlone = async (db: Db, id: string): Promise<GrantRow | null> => {
  const [row] = await db.select().from(benefitGrants).where(eq(benefitGrants.id, id));
  return row ?? null;
};

/**
 * By id alone, for the grant job, which holds only the grant's id (its tenancy was checked when the
 * job was queued): no scope applies, and the row read is the scope of everything read after.
 */
export const findGrantForJob = byIdAlone;

/** By id alone, for a signed download URL: the signature is the credential, not a scope. */
export const findGrantForSignedUrl = byIdAlone;

/** A grant in the scope. */
export async function findGrant(db: Db, scope: OrgScope, id: string): Promise<GrantRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(benefitGrants)
    .where(and(eq(benefitGrants.id, id), inScope(scope)));
  return row ?? null;
}

/** Grants that are granted or on their way to it: what a revoke has to take back. */
const live = or(isNotNull(benefitGrants.grantedAt), eq(benefitGrants.pendingAction, "grant"));

/** Marks the live grants matching `where` for revocation and returns them (locked). */
export async function markForRevoke(
  tx: Tx,
  scope: OrgScope,
  where: SQL,
  now: Date,
): Promise<GrantRow[]> {
  const ids = await tx
    .select({ id: benefitGrants.id })
    .from(benefitGrants)
    .where(and(inScope(scope), where, live))
    .for("update");
  if (ids.length === 0) return [];
  return tx
    .update(benefitGrants)
    .set({ pendingAction: "revoke", modifiedAt: now })
    .where(
      inArray(
        benefitGrants.id,
        ids.map((r) => r.id),
      ),
    )
    .returning();
}

export const bySubscription = (subscriptionId: string) =>
  eq(benefitGrants.subscriptionId, subscriptionId);
/** A subscription's grants of benefits its product (now) does not have: what a new plan drops. */
export const bySubscriptionOutsideProduct = (subscriptionId: string, productId: string) =>
  and(
    eq(benefitGrants.subscriptionId, subscriptionId),
    sql`${benefitGrants.benefitId} not in (select ${productBenefits.benefitId} from ${productBenefits} where ${productBenefits.productId} = ${productId})`,
  )!;
export const byOneTimeOrder = (orderId: string) =>
  and(eq(benefitGrants.orderId, orderId), isNull(benefitGrants.subscriptionId))!;
export const byCustomer = (customerId: string) => eq(benefitGrants.customerId, customerId);
export const byBenefit = (benefitId: string) => eq(benefitGrants.benefitId, benefitId);
/** One customer's grants within one purchase (a subscription, or a one-time order). */
export const byCustomerScope = (customerId: string, scopeId: string) =>
  and(eq(benefitGrants.customerId, customerId), eq(benefitGrants.scopeId, scopeId))!;
/** Grants of these benefits that came from buying this product (its orders or subscriptions). */
export const byProductBenefits = (productId: string, benefitIds: string[]) =>
  and(
    anyOf(benefitGrants.benefitId, benefitIds),
    or(
      inArray(
        benefitGrants.subscriptionId,
        sql`(select ${subscriptions.id} from ${subscriptions} where ${subscriptions.productId} = ${productId})`,
      ),
      and(
        isNull(benefitGrants.subscriptionId),
        inArray(
          benefitGrants.orderId,
          sql`(select ${orders.id} from ${orders} where ${orders.productId} = ${productId})`,
        ),
      ),
    ),
  )!;

export async function grantedOfCustomer(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<GrantRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(benefitGrants)
    .where(
      and(
        eq(benefitGrants.customerId, customerId),
        isNotNull(benefitGrants.grantedAt),
        inScope(scope),
      ),
    )
    .orderBy(asc(benefitGrants.createdAt), asc(benefitGrants.id));
}

/** A third-party account linked (through better-auth social sign-in) by a user with this email. */
export async function linkedAccount(
  db: Db,
  email: string,
  providerId: string,
): Promise<{ accountId: string; accessToken: string | null } | null> {
  const [row] = await db
    .select({ accountId: account.accountId, accessToken: account.accessToken })
    .from(account)
    .innerJoin(user, eq(user.id, account.userId))
    .where(and(eq(account.providerId, providerId), sql`lower(${user.email}) = lower(${email})`))
    .orderBy(desc(account.updatedAt))
    .limit(1);
  return row ?? null;
}

/** Every account the till user with this email linked for the provider (social sign-in). */
export async function linkedAccounts(
  db: Db,
  email: string,
  providerId: string,
): Promise<{ accountId: string; accessToken: string | null }[]> {
  return db
    .select({ accountId: account.accountId, accessToken: account.accessToken })
    .from(account)
    .innerJoin(user, eq(user.id, account.userId))
    .where(and(eq(account.providerId, providerId), sql`lower(${user.email}) = lower(${email})`))
    .orderBy(desc(account.updatedAt));
}

/**
 * Granted, not revoked, and not on its way out: a grant marked for revoke (a plan change dropped
 * its benefit) is not renewed by the cycle.
 */
const inForce = and(
  isNotNull(benefitGrants.grantedAt),
  isNull(benefitGrants.revokedAt),
  or(isNull(benefitGrants.pendingAction), ne(benefitGrants.pendingAction, "revoke")),
)!;

/** The subscription's grants that are in force, for the cycle. */
export function grantedOfSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
): Promise<GrantRow[]> {
  return ofSubscription(db, scope, subscriptionId, inForce);
}

/**
 * A subscription's grants in force or on their way to it (a paid retry re-grants what the failure
 * took back): what a renewal's credits are worked out over.
 */
export function cyclableOfSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
): Promise<GrantRow[]> {
  return ofSubscription(
    db,
    scope,
    subscriptionId,
    or(inForce, eq(benefitGrants.pendingAction, "grant"))!,
  );
}

async function ofSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
  which: SQL,
): Promise<GrantRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(benefitGrants)
    .where(and(eq(benefitGrants.subscriptionId, subscriptionId), inScope(scope), which))
    .orderBy(asc(benefitGrants.createdAt), asc(benefitGrants.id));
}

/** grantedOfSubscription of many subscriptions in one read. */
export async function grantedOfSubscriptions(
  db: Db,
  scope: OrgScope,
  subscriptionIds: string[],
): Promise<GrantRow[]> {
  if (subscriptionIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(benefitGrants)
    .where(and(anyOf(benefitGrants.subscriptionId, subscriptionIds), inScope(scope), inForce))
    .orderBy(asc(benefitGrants.createdAt), asc(benefitGrants.id));
}

/** grantedOfCustomer of many customers in one read. */
export async function grantedOfCustomers(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
): Promise<GrantRow[]> {
  if (customerIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(benefitGrants)
    .where(
      and(
        anyOf(benefitGrants.customerId, customerIds),
        isNotNull(benefitGrants.grantedAt),
        inScope(scope),
      ),
    )
    .orderBy(asc(benefitGrants.createdAt), asc(benefitGrants.id));
}

export async function recordDownload(
  db: Db,
  d: {
    organizationId: string;
    customerId: string;
    benefitId: string;
    grantId: string;
    fileId: string;
  },
): Promise<void> {
  await db.insert(fileDownloads).values(d);
}

/** Downloads and distinct downloading customers per file of a benefit. */
export async function downloadStats(
  db: Db,
  scope: OrgScope,
  benefitId: string,
): Promise<Map<string, { downloads: number; downloaders: number }>> {
  if (scope.length === 0) return new Map();
  const rows = await db
    .select({
      fileId: fileDownloads.fileId,
      downloads: count(),
      downloaders: countDistinct(fileDownloads.customerId),
    })
    .from(fileDownloads)
    .where(
      and(
        eq(fileDownloads.benefitId, benefitId),
        inArray(fileDownloads.organizationId, [...scope]),
      ),
    )
    .groupBy(fileDownloads.fileId);
  return new Map(
    rows.map((r) => [r.fileId, { downloads: r.downloads, downloaders: r.downloaders }]),
  );
}
