// SQL on better-auth's user table that till needs outside better-auth's own endpoints: a user's
// platform role, and promoting the users of configured emails to admin.
import { and, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { member, organization, session, user } from "../../../db/schema/index.ts";

export async function userRole(db: Db, userId: string): Promise<string | null> {
  const [row] = await db.select({ role: user.role }).from(user).where(eq(user.id, userId)).limit(1);
  return row?.role ?? null;
}

export async function userProfile(
  db: Db,
  userId: string,
): Promise<{
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
} | null> {
  const [row] = await db
    .select({
      id: user.id,
      name: user.name,
      email: user.email,
      emailVerified: user.emailVerified,
      image: user.image,
    })
    .from(user)
    .where(eq(user.id, userId))
    .limit(1);
  return row ?? null;
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

/**
 * Deletes a session named by its stored token hash (the handle session lists carry), only one of
 * `userId`'s when given; whether one was deleted.
 */
export async function deleteSessionByHandle(
  db: Db,
  handle: string,
  userId: string | null,
): Promise<boolean> {
  const rows = await db
    .delete(session)
    .where(and(eq(session.token, handle), userId ? eq(session.userId, userId) : undefined))
    .returning({ id: session.id });
  return rows.length > 0;
}

/**
 * Deletes the user's sessions but the one stored as `keepHandle`; device (CLI) sessions only when
 * asked. How many went.
 */
export async function deleteOtherSessions(
  db: Db,
  userId: string,
  keepHandle: string,
  includeDeviceSessions: boolean,
): Promise<number> {
  const rows = await db
    .delete(session)
    .where(
      and(
        eq(session.userId, userId),
        ne(session.token, keepHandle),
        includeDeviceSessions ? undefined : isNull(session.clientId),
      ),
    )
    .returning({ id: session.id });
  return rows.length;
}

/** The organizations the user is a member of, by name. */
export async function organizationsOfUser(
  db: Db,
  userId: string,
): Promise<{ name: string; slug: string }[]> {
  return db
    .select({ name: organization.name, slug: organization.slug })
    .from(member)
    .innerJoin(organization, eq(organization.id, member.organizationId))
    .where(eq(member.userId, userId))
    .orderBy(organization.name);
}
