// SQL for OAuth 2.0 apps: clients by owner, codes consumed once, token pairs found by hash.
import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { oauth2Clients, oauth2Codes, oauth2Tokens } from "../../../db/schema/index.ts";
import type { OAuth2ClientRow, OAuth2TokenRow } from "./schemas.ts";

export type OAuth2CodeRow = typeof oauth2Codes.$inferSelect;

export async function insertClient(
  db: Db,
  values: typeof oauth2Clients.$inferInsert,
): Promise<OAuth2ClientRow> {
  const [row] = await db.insert(oauth2Clients).values(values).returning();
  return row!;
}

export async function findClient(db: Db, clientId: string): Promise<OAuth2ClientRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Clients)
    .where(eq(oauth2Clients.clientId, clientId))
    .limit(1);
  return row ?? null;
}

export async function findOwnedClient(
  db: Db,
  userId: string,
  clientId: string,
): Promise<OAuth2ClientRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Clients)
    .where(and(eq(oauth2Clients.clientId, clientId), eq(oauth2Clients.userId, userId)))
    .limit(1);
  return row ?? null;
}

export async function updateClient(
  db: Db,
  id: string,
  values: Partial<typeof oauth2Clients.$inferInsert>,
): Promise<OAuth2ClientRow> {
  const [row] = await db
    .update(oauth2Clients)
    .set(values)
    .where(eq(oauth2Clients.id, id))
    .returning();
  return row!;
}

export async function deleteClient(db: Db, id: string): Promise<void> {
  await db.delete(oauth2Clients).where(eq(oauth2Clients.id, id));
}

export async function insertCode(db: Db, values: typeof oauth2Codes.$inferInsert): Promise<void> {
  await db.insert(oauth2Codes).values(values);
}

export async function findCode(db: Db, codeHash: string): Promise<OAuth2CodeRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Codes)
    .where(eq(oauth2Codes.codeHash, codeHash))
    .limit(1);
  return row ?? null;
}

/** Marks the code used; false when another request used it first. */
export async function consumeCode(db: Db, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(oauth2Codes)
    .set({ usedAt: now })
    .where(and(eq(oauth2Codes.id, id), isNull(oauth2Codes.usedAt)))
    .returning({ id: oauth2Codes.id });
  return rows.length === 1;
}

export async function insertToken(
  db: Db,
  values: typeof oauth2Tokens.$inferInsert,
): Promise<OAuth2TokenRow> {
  const [row] = await db.insert(oauth2Tokens).values(values).returning();
  return row!;
}

export async function findTokenByAccessHash(db: Db, hash: string): Promise<OAuth2TokenRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Tokens)
    .where(eq(oauth2Tokens.accessTokenHash, hash))
    .limit(1);
  return row ?? null;
}

export async function findTokenByRefreshHash(db: Db, hash: string): Promise<OAuth2TokenRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Tokens)
    .where(eq(oauth2Tokens.refreshTokenHash, hash))
    .limit(1);
  return row ?? null;
}

/** The active token pair whose access token hashes to `hash`. */
export async function findActiveAccess(
  db: Db,
  hash: string,
  now: Date,
): Promise<OAuth2TokenRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Tokens)
    .where(
      and(
        eq(oauth2Tokens.accessTokenHash, hash),
        isNull(oauth2Tokens.revokedAt),
        gt(oauth2Tokens.accessExpiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** Revokes the pair; false when it was already revoked (a refresh raced this one). */
export async function revokeToken(db: Db, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(oauth2Tokens)
    .set({ revokedAt: now })
    .where(and(eq(oauth2Tokens.id, id), isNull(oauth2Tokens.revokedAt)))
    .returning({ id: oauth2Tokens.id });
  return rows.length === 1;
}

export async function findTokenByEitherHash(db: Db, hash: string): Promise<OAuth2TokenRow | null> {
  const [row] = await db
    .select()
    .from(oauth2Tokens)
    .where(or(eq(oauth2Tokens.accessTokenHash, hash), eq(oauth2Tokens.refreshTokenHash, hash)))
    .limit(1);
  return row ?? null;
}
