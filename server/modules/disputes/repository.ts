// SQL for disputes: the seller's list and reads under an OrgScope, and the row the processor's
// events keep current, read by the processor's id (a webhook names only that).
import { and, asc, count, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { disputes } from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";

export type DisputeRow = typeof disputes.$inferSelect;
export type DisputeInsert = typeof disputes.$inferInsert;

export interface DisputeFilter {
  scope: OrgScope;
  orderIds?: string[] | undefined;
  statuses?: DisputeRow["status"][] | undefined;
}

const SORTS = { created_at: disputes.createdAt, amount: disputes.amount } as const;
export type DisputeSort = keyof typeof SORTS;

export async function listDisputes(
  db: Db,
  f: DisputeFilter,
  sorting: { key: DisputeSort; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: DisputeRow[]; total: number }> {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inArray(disputes.organizationId, [...f.scope])];
  if (f.orderIds?.length) conds.push(anyOf(disputes.orderId, f.orderIds));
  if (f.statuses?.length) conds.push(inArray(disputes.status, f.statuses));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(disputes)
      .where(where)
      .orderBy(...order, asc(disputes.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(disputes).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function findDispute(db: Db, scope: OrgScope, id: string): Promise<DisputeRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.id, id), inArray(disputes.organizationId, [...scope])))
    .limit(1);
  return row ?? null;
}

/**
 * The dispute a processor's event names, locked: no scope applies (processor ids are global), and
 * the row read is the scope of everything read after.
 */
export async function lockByProcessorIdForProcessor(
  db: Db,
  processor: DisputeRow["processor"],
  processorDisputeId: string,
): Promise<DisputeRow | null> {
  const [row] = await db
    .select()
    .from(disputes)
    .where(
      and(eq(disputes.processor, processor), eq(disputes.processorDisputeId, processorDisputeId)),
    )
    .for("update");
  return row ?? null;
}

/** Inserts the dispute unless another event for it got there first (then the caller re-reads). */
export async function insertDispute(db: Db, row: DisputeInsert): Promise<void> {
  await db
    .insert(disputes)
    .values(row)
    .onConflictDoNothing({ target: [disputes.processor, disputes.processorDisputeId] });
}

export async function updateDispute(
  db: Db,
  id: string,
  values: Partial<DisputeInsert>,
): Promise<DisputeRow> {
  const [row] = await db.update(disputes).set(values).where(eq(disputes.id, id)).returning();
  return row!;
}
