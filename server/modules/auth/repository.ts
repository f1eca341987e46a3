// SQL on better-auth's user table that till needs outside better-auth's own endpoints: a user's
// platform role, and promoting the users of configured emails to admin.
import { and, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { user } from "../../../db/schema/index.ts";

export async function userRole(db: Db, userId: string): Promise<string | null> {
  const [row] = await db.select({ role: user.role }).from(user).where(eq(user.id, userId)).limit(1);
  return row?.role ?? null;
}

/** Gives the admin role to the users of `emails` (lower-cased) who lack it; only verified ones when asked. */
export async function promoteToAdmin(
  db: Db,
  emails: readonly string[],
  onlyVerified: boolean,
): Promise<{ id: string; email: string }[]> {
  if (emails.length === 0) return [];
  return db
    .update(user)
    .set({ role: "admin" })
    .where(
      and(
        inArray(sql`lower(${user.email})`, [...emails]),
        or(isNull(user.role), ne(user.role, "admin")),
        onlyVerified ? eq(user.emailVerified, true) : undefined,
      ),
    )
    .returning({ id: user.id, email: user.email });
}
