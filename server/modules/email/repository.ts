// SQL for the email outbox.
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import { insertJsonRows } from "../../../db/bulk.ts";
import { queryRows, type Db, type Tx } from "../../../db/client.ts";
import { emailOutbox, invitation, member, user } from "../../../db/schema/index.ts";

export interface OutgoingMail {
  kind: string;
  to: string;
  subject: string;
  text: string;
  link?: string;
  /** Mail a job sends: the same key is written and sent once, however often the job runs. */
  key?: string;
}

/** A mail as its row keeps it: the link sealed (links.ts). */
export type StoredMail = Omit<OutgoingMail, "link"> & { link: string | null };

/** Writes a mail's row; its id, or null when its key is already recorded. */
export async function insertMail(db: Db, mail: StoredMail): Promise<string | null> {
  const [row] = await db
    .insert(emailOutbox)
    .values({
      kind: mail.kind,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      link: mail.link,
      dedupKey: mail.key ?? null,
    })
    .onConflictDoNothing({ target: emailOutbox.dedupKey })
    .returning({ id: emailOutbox.id });
  return row?.id ?? null;
}

/** The row recorded under a key, and whether it was delivered or failed. */
export async function mailOfKey(db: Db, key: string) {
  const [row] = await db
    .select({ id: emailOutbox.id, sentAt: emailOutbox.sentAt, error: emailOutbox.error })
    .from(emailOutbox)
    .where(eq(emailOutbox.dedupKey, key));
  return row ?? null;
}

/**
 * insertMail of many mails in one statement (one JSON parameter, db/bulk.ts: a job of a hundred
 * receipts otherwise binds 500 placeholders); the rows written and the index of each one's mail,
 * in the order given (a key already recorded writes none).
 */
export async function insertMails(
  db: Db,
  mails: StoredMail[],
): Promise<{ id: string; index: number }[]> {
  if (mails.length === 0) return [];
  const rows = mails.map((mail) => ({
    id: randomUUID(),
    kind: mail.kind,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    link: mail.link,
    dedupKey: mail.key ?? null,
  }));
  const written = new Set(
    (
      await queryRows<{ id: string }>(
        db,
        sql`${insertJsonRows(emailOutbox, rows)} on conflict (dedup_key) do nothing returning id`,
      )
    ).map((r) => r.id),
  );
  return rows.flatMap((r, index) => (written.has(r.id) ? [{ id: r.id, index }] : []));
}

/**
 * Locks a mail's row until the transaction ends, when no delivery of it is recorded yet; false
 * otherwise (also once a run that held the lock recorded one: the row is read again after the wait).
 */
export async function lockUndelivered(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.id, id), isNull(emailOutbox.sentAt), isNull(emailOutbox.error)))
    .for("update");
  return rows.length > 0;
}

export async function markMailSent(db: Db, id: string, at: Date): Promise<void> {
  await db.update(emailOutbox).set({ sentAt: at }).where(eq(emailOutbox.id, id));
}

/** A failed delivery and its error; `rejectedAt` when the refusal is for good (never retried). */
export async function markMailFailed(
  db: Db,
  id: string,
  error: string,
  rejectedAt: Date | null = null,
): Promise<void> {
  await db
    .update(emailOutbox)
    .set({ error: error.slice(0, 500), rejectedAt })
    .where(eq(emailOutbox.id, id));
}

/** Messages whose last delivery failed and may succeed later, created since `since`, oldest first. */
export async function failedMails(db: Db, since: Date, limit: number) {
  return db
    .select()
    .from(emailOutbox)
    .where(
      and(
        gt(emailOutbox.createdAt, since),
        isNull(emailOutbox.sentAt),
        isNotNull(emailOutbox.error),
        isNull(emailOutbox.rejectedAt),
      ),
    )
    .orderBy(asc(emailOutbox.createdAt))
    .limit(limit);
}

/**
 * The sandbox outbox as one user may see it: all mail to themselves, and invitations sent to
 * members of their organizations and to addresses their organizations invited. Anyone may invite
 * any address, so another person's account mail (reset, verification, change of email, deletion)
 * is never shown: its link would take over their account. Recipients match case-insensitively.
 */
export async function listMailsVisibleTo(db: Db, userId: string, limit: number) {
  return db
    .select()
    .from(emailOutbox)
    .where(
      sql`(lower(${emailOutbox.to}) in (
        select lower(u.email) from ${user} u where u.id = ${userId}
      ) or (${emailOutbox.kind} = 'invitation' and lower(${emailOutbox.to}) in (
        select lower(u.email) from ${member} mine
          join ${member} m on m.organization_id = mine.organization_id
          join ${user} u on u.id = m.user_id
          where mine.user_id = ${userId}
        union
        select lower(i.email) from ${member} mine
          join ${invitation} i on i.organization_id = mine.organization_id
          where mine.user_id = ${userId}
      )))`,
    )
    .orderBy(desc(emailOutbox.createdAt))
    .limit(limit);
}
