// SQL for the email outbox.
import { desc, eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { emailOutbox } from "../../../db/schema/index.ts";
import type { OutgoingMail } from "./mailer.ts";

export async function insertMail(db: Db, mail: OutgoingMail): Promise<string> {
  const [row] = await db
    .insert(emailOutbox)
    .values({ kind: mail.kind, to: mail.to, subject: mail.subject, text: mail.text, link: mail.link ?? null })
    .returning({ id: emailOutbox.id });
  return row!.id;
}

export async function markMailSent(db: Db, id: string, at: Date): Promise<void> {
  await db.update(emailOutbox).set({ sentAt: at }).where(eq(emailOutbox.id, id));
}

export async function markMailFailed(db: Db, id: string, error: string): Promise<void> {
  await db.update(emailOutbox).set({ error: error.slice(0, 500) }).where(eq(emailOutbox.id, id));
}

export async function listMails(db: Db, limit: number) {
  return db.select().from(emailOutbox).orderBy(desc(emailOutbox.createdAt)).limit(limit);
}
