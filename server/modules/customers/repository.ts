// SQL for customers. Every read takes an OrgScope (lib/org-scope.ts) and filters by it in SQL, and
// all but the deleted-included readers skip deleted rows; writes go by the id of a customer already
// read under a scope (or just inserted into an organization the caller proved).
import { and, asc, count, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customers, events, subscriptions } from "../../../db/schema/index.ts";
import { metadataCondition } from "../../lib/metadata.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { containsPattern } from "../../lib/query.ts";
import type { CustomerRecord, CustomerRow } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export type { CustomerRow };

// The first event is read through events_org_customer_ts_idx: one index probe per customer. Outer
// columns are written qualified: drizzle renders a single-table select's columns bare, which inside a
// subquery would bind to the inner table.
const outer = (column: string) => sql`${sql.identifier("customers")}.${sql.identifier(column)}`;
const firstUserEventAt =
  sql<Date | null>`(select min(e.timestamp) from ${events} as e where e.organization_id = ${outer("organization_id")} and e.customer_id = ${outer("id")} and e.source = 'user')`.mapWith(
    (v: string | Date | null) => (v === null ? null : new Date(v)),
  );

const selection = { customer: customers, firstUserEventAt };

const inScope = (scope: OrgScope) => inArray(customers.organizationId, [...scope]);

function record(row: { customer: CustomerRow; firstUserEventAt: Date | null }): CustomerRecord {
  return { ...row.customer, firstUserEventAt: row.firstUserEventAt };
}

const SORTS = {
  created_at: customers.createdAt,
  email: customers.email,
  name: customers.name,
} as const;

export interface CustomerFilter {
  email?: string | undefined;
  query?: string | undefined;
  active?: boolean | undefined;
  metadata: Record<string, string[]>;
}

export async function listCustomers(
  db: Db,
  scope: OrgScope,
  filter: CustomerFilter,
  sorting: { key: keyof typeof SORTS; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: CustomerRecord[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [inScope(scope), isNull(customers.deletedAt)];
  if (filter.email) conds.push(sql`lower(${customers.email}) = lower(${filter.email})`);
  if (filter.query) {
    const q = containsPattern(filter.query);
    conds.push(
      or(ilike(customers.email, q), ilike(customers.name, q), ilike(customers.externalId, q)),
    );
  }
  // Active means a trialing, active or past-due subscription (as activeOfCustomer reads it).
  if (filter.active !== undefined) {
    const hasActive = sql`exists (select 1 from ${subscriptions} as s where s.customer_id = ${outer("id")} and s.status in ('active', 'trialing', 'past_due'))`;
    conds.push(filter.active ? hasActive : sql`not ${hasActive}`);
  }
  conds.push(metadataCondition(customers.metadata, filter.metadata));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select(selection)
      .from(customers)
      .where(where)
      .orderBy(...order, asc(customers.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(customers).where(where),
  ]);
  return { rows: rows.map(record), total: totals!.n };
}

export async function findCustomer(
  db: Db,
  scope: OrgScope,
  by: { id: string } | { externalId: string },
): Promise<CustomerRecord | null> {
  if (scope.length === 0) return null;
  const key = "id" in by ? eq(customers.id, by.id) : eq(customers.externalId, by.externalId);
  const [row] = await db
    .select(selection)
    .from(customers)
    .where(and(key, inScope(scope), isNull(customers.deletedAt)))
    .limit(1);
  return row ? record(row) : null;
}

/**
 * Which of the unique fields are already used by another live customer in the scope: the one
 * organization a customer is created in or belongs to, since uniqueness is per organization.
 */
export async function conflicts(
  db: Db,
  scope: OrgScope,
  values: { email?: string | null | undefined; externalId?: string | null | undefined },
  exceptId?: string,
) {
  const checks: SQL[] = [];
  if (values.email) checks.push(sql`lower(${customers.email}) = lower(${values.email})`);
  if (values.externalId) checks.push(eq(customers.externalId, values.externalId));
  if (checks.length === 0 || scope.length === 0) return { email: false, externalId: false };
  const rows = await db
    .select({ email: customers.email, externalId: customers.externalId })
    .from(customers)
    .where(
      and(
        inScope(scope),
        isNull(customers.deletedAt),
        or(...checks),
        exceptId ? sql`${customers.id} <> ${exceptId}` : undefined,
      ),
    );
  return {
    email:
      Boolean(values.email) &&
      rows.some((r) => r.email.toLowerCase() === values.email!.toLowerCase()),
    externalId: Boolean(values.externalId) && rows.some((r) => r.externalId === values.externalId),
  };
}

export async function insertCustomer(
  db: Db,
  values: typeof customers.$inferInsert,
): Promise<string> {
  const [row] = await db.insert(customers).values(values).returning({ id: customers.id });
  return row!.id;
}

/**
 * Inserts a customer unless a live one of the organization already holds its email or external ID
 * (another request inserted it since the caller looked): null then. The statement waits for that
 * request to commit, so the caller's next read finds its customer.
 */
export async function insertCustomerUnlessTaken(
  db: Db,
  values: typeof customers.$inferInsert,
): Promise<string | null> {
  const [row] = await db
    .insert(customers)
    .values(values)
    .onConflictDoNothing()
    .returning({ id: customers.id });
  return row?.id ?? null;
}

export async function updateCustomer(
  db: Db,
  id: string,
  values: Partial<typeof customers.$inferInsert>,
): Promise<void> {
  await db.update(customers).set(values).where(eq(customers.id, id));
}

/** Reads a customer by id whatever its state, for the customer.deleted payload. */
export async function findAnyCustomer(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CustomerRecord | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select(selection)
    .from(customers)
    .where(and(eq(customers.id, id), inScope(scope)))
    .limit(1);
  return row ? record(row) : null;
}

/** Live customers in the scope by id or external id, for resolving ingested events. */
export async function customerRefs(db: Db, scope: OrgScope, ids: string[], externalIds: string[]) {
  if ((ids.length === 0 && externalIds.length === 0) || scope.length === 0) return [];
  const match: SQL[] = [];
  if (ids.length > 0) match.push(anyOf(customers.id, ids));
  if (externalIds.length > 0) match.push(anyOf(customers.externalId, externalIds));
  return db
    .select({ id: customers.id, externalId: customers.externalId })
    .from(customers)
    .where(and(inScope(scope), isNull(customers.deletedAt), or(...match)));
}

/** The customers among `ids` in the scope, deleted ones included (unknown and out-of-scope left out). */
export async function findCustomersByIds(
  db: Db,
  scope: OrgScope,
  ids: string[],
): Promise<CustomerRecord[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  const rows = await db
    .select(selection)
    .from(customers)
    .where(and(anyOf(customers.id, ids), inScope(scope)));
  return rows.map(record);
}

export async function findByEmail(
  db: Db,
  scope: OrgScope,
  email: string,
): Promise<CustomerRecord | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select(selection)
    .from(customers)
    .where(
      and(
        inScope(scope),
        isNull(customers.deletedAt),
        sql`lower(${customers.email}) = lower(${email})`,
      ),
    )
    .limit(1);
  return row ? record(row) : null;
}

/**
 * The ids of the scope's customers with any of these external ids, as a subquery for another
 * table's list filter (`customer_id in (…)`). External ids are unique per organization only, so
 * they are resolved within the scope.
 */
export function customerIdsByExternalId(db: Db, scope: OrgScope, externalIds: string[]) {
  return db
    .select({ id: customers.id })
    .from(customers)
    .where(
      and(inArray(customers.organizationId, [...scope]), anyOf(customers.externalId, externalIds)),
    );
}
