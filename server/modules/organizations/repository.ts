// SQL for organizations: better-auth's organization rows joined with till's seller profile.
import { and, asc, count, desc, eq, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { member, organization, organizationProfiles } from "../../../db/schema/index.ts";

import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";

export type OrganizationRow = typeof organization.$inferSelect;
export type ProfileRow = typeof organizationProfiles.$inferSelect;
export interface OrganizationRecord {
  org: OrganizationRow;
  profile: ProfileRow;
}

export async function memberOrganizationIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: member.organizationId })
    .from(member)
    .where(eq(member.userId, userId))
    .orderBy(asc(member.createdAt), asc(member.organizationId));
  return rows.map((r) => r.id);
}

export async function ensureProfile(db: Db, organizationId: string): Promise<void> {
  await db.insert(organizationProfiles).values({ organizationId }).onConflictDoNothing();
}

const SORTS = {
  created_at: organization.createdAt,
  slug: organization.slug,
  name: organization.name,
} as const;
export type OrganizationSort = keyof typeof SORTS;

export async function listOrganizations(
  db: Db,
  scope: OrgScope,
  filter: { slug?: string | undefined },
  sorting: { key: OrganizationSort; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: OrganizationRecord[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inScope(organization.id, scope)];
  if (filter.slug) conds.push(eq(organization.slug, filter.slug));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select({ org: organization, profile: organizationProfiles })
      .from(organization)
      .innerJoin(organizationProfiles, eq(organizationProfiles.organizationId, organization.id))
      .where(where)
      .orderBy(...order, asc(organization.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(organization).where(where),
  ]);
  return { rows, total: totals!.n };
}

/** The organization `id` when the scope holds it, else null. */
export async function findOrganization(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<OrganizationRecord | null> {
  if (!scope.includes(id)) return null;
  const [row] = await db
    .select({ org: organization, profile: organizationProfiles })
    .from(organization)
    .innerJoin(organizationProfiles, eq(organizationProfiles.organizationId, organization.id))
    .where(eq(organization.id, id))
    .limit(1);
  return row ?? null;
}

export async function idBySlug(db: Db, slug: string): Promise<string | null> {
  const [row] = await db
    .select({ id: organization.id })
    .from(organization)
    .where(eq(organization.slug, slug))
    .limit(1);
  return row?.id ?? null;
}

export async function slugTaken(db: Db, slug: string): Promise<boolean> {
  return (await idBySlug(db, slug)) !== null;
}

export async function updateOrganization(
  db: Db,
  id: string,
  org: Partial<Pick<OrganizationRow, "name" | "logo">>,
  profile: Partial<Omit<ProfileRow, "organizationId" | "createdAt">>,
): Promise<void> {
  if (Object.keys(org).length > 0)
    await db.update(organization).set(org).where(eq(organization.id, id));
  await db
    .update(organizationProfiles)
    .set(profile)
    .where(eq(organizationProfiles.organizationId, id));
}
