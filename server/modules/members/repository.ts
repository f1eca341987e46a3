// SQL for members. Every read takes an OrgScope and names the customer whose team it reads (a
// customer read under the same scope), or the caller's organizations; lists skip members of
// deleted customers.
import { and, asc, count, desc, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import { customers, members, type MemberRole } from "../../../db/schema/index.ts";
import type { MemberRow } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export interface MemberFilter {
  customerId?: string | undefined;
  externalCustomerId?: string | undefined;
  role?: MemberRole | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listMembers(
  db: Db,
  scope: OrgScope,
  filter: MemberFilter,
  sorting: { desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: MemberRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  // A customer id that is not a UUID names no customer (and must not reach a uuid comparison).
  if (filter.customerId !== undefined && !UUID.test(filter.customerId))
    return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [
    inScope(members.organizationId, scope),
    isNull(customers.deletedAt),
    filter.customerId ? eq(members.customerId, filter.customerId) : undefined,
    filter.externalCustomerId ? eq(customers.externalId, filter.externalCustomerId) : undefined,
    filter.role ? eq(members.role, filter.role) : undefined,
  ];
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(members.createdAt) : asc(members.createdAt)));
  const [rows, [totals]] = await Promise.all([
    db
      .select({ member: members })
      .from(members)
      .innerJoin(customers, eq(customers.id, members.customerId))
      .where(where)
      .orderBy(...order, asc(members.id))
      .limit(limit)
      .offset(offset),
    db
      .select({ n: count() })
      .from(members)
      .innerJoin(customers, eq(customers.id, members.customerId))
      .where(where),
  ]);
  return { rows: rows.map((r) => r.member), total: totals!.n };
}

const ofTeam = (scope: OrgScope, customerId: string) =>
  and(inScope(members.organizationId, scope), eq(members.customerId, customerId));

export async function membersOfCustomer(
  db: Db,
  scope: OrgScope,
  customerId: string,
  limit: number,
  offset: number,
): Promise<{ rows: MemberRow[]; total: number }> {
  const where = ofTeam(scope, customerId);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(members)
      .where(where)
      .orderBy(asc(members.createdAt), asc(members.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(members).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function findMember(
  db: Db,
  scope: OrgScope,
  customerId: string,
  by: { id: string } | { externalId: string },
): Promise<MemberRow | null> {
  const key = "id" in by ? eq(members.id, by.id) : eq(members.externalId, by.externalId);
  const [row] = await db
    .select()
    .from(members)
    .where(and(ofTeam(scope, customerId), key))
    .limit(1);
  return row ?? null;
}

export async function findByEmail(
  db: Db,
  scope: OrgScope,
  customerId: string,
  email: string,
  exceptId?: string,
): Promise<MemberRow | null> {
  const [row] = await db
    .select()
    .from(members)
    .where(
      and(
        ofTeam(scope, customerId),
        sql`lower(${members.email}) = lower(${email})`,
        exceptId ? ne(members.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function findOwner(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<MemberRow | null> {
  const [row] = await db
    .select()
    .from(members)
    .where(and(ofTeam(scope, customerId), eq(members.role, "owner")))
    .limit(1);
  return row ?? null;
}

export async function insertMember(
  db: Db,
  values: typeof members.$inferInsert,
): Promise<MemberRow> {
  const [row] = await db.insert(members).values(values).returning();
  return row!;
}

export async function updateMember(
  db: Db,
  id: string,
  values: Partial<typeof members.$inferInsert>,
): Promise<MemberRow> {
  const [row] = await db.update(members).set(values).where(eq(members.id, id)).returning();
  return row!;
}

export async function deleteMember(db: Db, id: string): Promise<void> {
  await db.delete(members).where(eq(members.id, id));
}

export async function membersByIds(db: Db, scope: OrgScope, ids: string[]): Promise<MemberRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(members)
    .where(and(inScope(members.organizationId, scope), anyOf(members.id, ids)));
}
