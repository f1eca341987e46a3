// SQL for sandbox confirmation tokens.
import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { sandboxConfirmationTokens } from "../../../db/schema/index.ts";

export type ConfirmationTokenRow = typeof sandboxConfirmationTokens.$inferSelect;

export async function insertConfirmationToken(
  db: Db,
  row: typeof sandboxConfirmationTokens.$inferInsert,
): Promise<void> {
  await db.insert(sandboxConfirmationTokens).values(row);
}

export async function findConfirmationToken(
  db: Db,
  id: string,
): Promise<ConfirmationTokenRow | null> {
  const [row] = await db
    .select()
    .from(sandboxConfirmationTokens)
    .where(eq(sandboxConfirmationTokens.id, id))
    .limit(1);
  return row ?? null;
}
