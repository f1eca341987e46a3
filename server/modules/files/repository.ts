// SQL for files. Reads take an OrgScope, except the lookups by id alone named for why none applies:
// a signed upload or download URL (the signature names the file) and a public file's URL.
import { and, asc, count, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { files } from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";

export type FileRow = typeof files.$inferSelect;

const live = isNull(files.deletedAt);

export async function insertFile(db: Db, values: typeof files.$inferInsert): Promise<FileRow> {
  const [row] = await db.insert(files).values(values).returning();
  return row!;
}

export async function findFile(db: Db, scope: OrgScope, id: string): Promise<FileRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), inArray(files.organizationId, [...scope]), live))
    .limit(1);
  return row ?? null;
}

const byIdAlone = async (db: Db, id: string): Promise<FileRow | null> => {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), live))
    .limit(1);
  return row ?? null;
};

/** By id alone, for a signed upload or download URL: the signature is the credential. */
export const findFileForSignedUrl = byIdAlone;

/** By id alone, for a public file's URL (product media, avatars): anyone may fetch those. */
export const findPublicFile = byIdAlone;

/** The live files among `ids` in the scope, in no particular order. */
export async function findFiles(db: Db, scope: OrgScope, ids: string[]): Promise<FileRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(files)
    .where(and(inArray(files.organizationId, [...scope]), anyOf(files.id, ids), live));
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
  scope: OrgScope,
  ids: string[] | undefined,
  limit: number,
  offset: number,
) {
  if (scope.length === 0) return { rows: [] as FileRow[], total: 0 };
  const conds = [inArray(files.organizationId, [...scope]), live];
  if (ids?.length) conds.push(anyOf(files.id, ids));
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
