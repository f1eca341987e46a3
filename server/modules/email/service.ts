// Recording outgoing mail: a mail's row (its link sealed), and what must be written exactly when it
// is, in one transaction. The SQL is the repository's; the sending is the mailer's.
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { MailLinks } from "./links.ts";
import { insertMail, insertMails, mailOfKey, type OutgoingMail } from "./repository.ts";

/**
 * Written in the transaction that records a mail, only when it records it (not for a key already
 * recorded): what must exist exactly when the mail does, e.g. the session its link signs in with.
 */
export type MailRecorded = (tx: Tx, mails: OutgoingMail[]) => Promise<void>;

/**
 * Records a mail; its row, whether to send it now, and whether this call wrote it. A key already
 * recorded answers its row, to send only when no delivery was recorded (a run that died before
 * sending it); a failed one is left to the retry job.
 */
export async function recordMail(
  db: Db,
  links: MailLinks,
  mail: OutgoingMail,
  recorded?: MailRecorded,
): Promise<{ id: string; send: boolean; inserted: boolean }> {
  const write = async (handle: Db) => {
    const id = await insertMail(handle, { ...mail, ...links.seal(mail) });
    if (id) return { id, send: true, inserted: true };
    const existing = (await mailOfKey(handle, mail.key!))!;
    return { id: existing.id, send: !existing.sentAt && !existing.error, inserted: false };
  };
  if (!recorded) return write(db);
  return inTransaction(db, async (tx) => {
    const written = await write(tx);
    if (written.inserted) await recorded(tx, [mail]);
    return written;
  });
}

/** recordMail of many mails in one statement; the rows written, in the order given. */
export async function recordMails(
  db: Db,
  links: MailLinks,
  mails: OutgoingMail[],
  recorded?: MailRecorded,
): Promise<{ id: string; mail: OutgoingMail }[]> {
  if (mails.length === 0) return [];
  const write = async (handle: Db) =>
    (
      await insertMails(
        handle,
        mails.map((mail) => ({ ...mail, ...links.seal(mail) })),
      )
    ).map(({ id, index }) => ({ id, mail: mails[index]! }));
  if (!recorded) return write(db);
  return inTransaction(db, async (tx) => {
    const written = await write(tx);
    if (written.length > 0)
      await recorded(
        tx,
        written.map((w) => w.mail),
      );
    return written;
  });
}
