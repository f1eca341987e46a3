// SQL for files. Reads are scoped to organization ids, except the one lookup the signed upload URL
// makes (the signature already names the file).
import { and, asc, count, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { files } from "../../../db/schema/index.ts";

export type FileRow = typeof files.$inferSelect;

const live = isNull(files.deletedAt);

export async function insertFile(db: Db, values: typeof files.$inferInsert): Promise<FileRow> {
  const [row] = await db.insert(files).values(values).returning();
  return row!;
}

export async function findFile(
  db: Db,
  organizationIds: readonly string[],
  id: string,
): Promise<FileRow | null> {
  if (organizationIds.length === 0) return null;
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), inArray(files.organizationId, [...organizationIds]), live))
    .limit(1);
  return row ?? null;
}

export async function findFileForUpload(db: Db, id: string): Promise<FileRow | null> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), live))
    .limit(1);
  return row ?? null;
}

/** The live files among `ids` of one organization, in no particular order. */
export async function findFiles(db: Db, organizationId: string, ids: string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(files)
    .where(and(eq(files.organizationId, organizationId), inArray(files.id, ids), live));
}

export async function filesByIds(db: Db, ids: string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(files)
    .where(and(inArray(files.id, ids), live));
}

/**
 * Records a received part in one statement, so parts uploaded in parallel never overwrite each
 * other's entries in the plan.
 */
export async function recordPart(
  db: Db,
  id: string,
  index: number,
  etag: string,
  size: number,
): Promise<void> {
  await db
    .update(files)
    .set({
      parts: sql`jsonb_set(${files.parts}, ${`{${index}}`}::text[], (${files.parts} -> ${index}::int) || ${JSON.stringify({ etag, size })}::jsonb)`,
    })
    .where(eq(files.id, id));
}

export async function listFiles(
  db: Db,
  organizationIds: string[],
  ids: string[] | undefined,
  limit: number,
  offset: number,
) {
  if (organizationIds.length === 0) return { rows: [] as FileRow[], total: 0 };
  const conds = [inArray(files.organizationId, organizationIds), live];
  if (ids?.length) conds.push(inArray(files.id, ids));
  const where = and(...conds);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(files)
      .where(where)
      .orderBy(desc(files.createdAt), asc(files.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(files).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function updateFile(
  db: Db,
  id: string,
  values: Partial<typeof files.$inferInsert>,
): Promise<FileRow> {
  const [row] = await db.update(files).set(values).where(eq(files.id, id)).returning();
  return row!;
}

/** Deleting a file also detaches it from every product (the foreign key cascades). */
export async function deleteFile(db: Db, id: string): Promise<void> {
  await db.delete(files).where(eq(files.id, id));
}
