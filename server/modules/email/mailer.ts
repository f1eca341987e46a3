// Outgoing mail. Every message is recorded in the outbox table first; with SMTP_URL it is then sent
// through nodemailer, otherwise the log line with its link is how a developer in `till dev` reads it.
// A message the SMTP server refused or never took (down, restarting) keeps its error in the outbox
// and is sent again by the retry job (jobs.ts), so an outage of the relay loses no receipt. A 5xx
// reply (550 no such user) is permanent: the message is marked rejected with the reply and never
// sent again; 4xx replies and connection errors are retried.
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { Logger } from "../../lib/logger.ts";
import {
  failedMails,
  lockUndelivered,
  markMailFailed,
  markMailSent,
  type OutgoingMail,
} from "./repository.ts";
import { mailLinks } from "./links.ts";
import { type MailRecorded, recordMail, recordMails } from "./service.ts";

export type { MailRecorded, OutgoingMail };

export interface Mailer {
  /** `recorded` runs in the transaction that writes the mail's row, only when it writes it. */
  send(mail: OutgoingMail, recorded?: MailRecorded): Promise<void>;
  /** Many mails (a burst of receipts); without SMTP their outbox rows are one insert. */
  sendMany?(mails: OutgoingMail[], recorded?: MailRecorded): Promise<void>;
  /** Sends again the messages whose delivery failed since `since`; answers how many went out. */
  retryFailed?(since: Date): Promise<number>;
}

/** Failed messages sent again per run of the retry job. */
const RETRY_BATCH = 100;

export async function createMailer(deps: {
  config: Readonly<Config>;
  db: Db;
  log: Logger;
}): Promise<Mailer> {
  const { config, db, log } = deps;
  const embedded = config.database.kind === "pglite";
  const links = mailLinks(config.authSecret);
  let transport: { sendMail(opts: object): Promise<unknown> } | null = null;
  const messageIdDomain = /@([^>\s]+)/.exec(config.email.from)?.[1] ?? "till.invalid";
  if (config.email.smtpUrl) {
    const nodemailer = await import("nodemailer");
    transport = nodemailer.createTransport(config.email.smtpUrl);
  }
  /** Sends a row's message and records the outcome on `handle`. */
  const deliver = async (
    handle: Db,
    smtp: NonNullable<typeof transport>,
    emailId: string,
    mail: OutgoingMail,
  ): Promise<boolean> => {
    try {
      // A kill between the relay's accepting the message and markMailSent sends it again on the next
      // run: that window is this one round trip, and the Message-ID, the same on every attempt of
      // a row, lets the receiving side drop the copy.
      await smtp.sendMail({
        from: config.email.from,
        to: mail.to,
        subject: mail.subject,
        text: bodyOf(mail),
        messageId: `<${emailId}@${messageIdDomain}>`,
      });
      await markMailSent(handle, emailId, new Date());
      return true;
    } catch (err) {
      log.error({ err, emailId, kind: mail.kind }, "email delivery failed");
      const { message, responseCode, code } = err as Error & {
        responseCode?: number;
        code?: string;
      };
      // A refused login is the relay's configuration, not the message: retried once it is fixed.
      const permanent = typeof responseCode === "number" && responseCode >= 500 && code !== "EAUTH";
      await markMailFailed(handle, emailId, message, permanent ? new Date() : null);
      return false;
    }
  };
  const send = async (mail: OutgoingMail, recorded?: MailRecorded) => {
    const { id: emailId, send: due } = await recordMail(db, links, mail, recorded);
    if (!due) return;
    if (!transport) {
      log.info(
        { emailId, kind: mail.kind, to: mail.to, link: mail.link },
        "email (outbox only; set SMTP_URL to send)",
      );
      return;
    }
    // On embedded PGlite one process owns the database and a job never runs twice at once; its one
    // connection is not held for an SMTP round trip.
    if (!mail.key || embedded) {
      await deliver(db, transport, emailId, mail);
      return;
    }
    // A keyed mail is a job's, and a job may run twice at once (its worker thought dead while still
    // sending): its row is locked while it is sent, so the second run waits, finds the delivery
    // recorded and sends nothing. A process that dies mid-send releases the lock with its
    // connection, and the job's next run sends the mail.
    const smtp = transport;
    await inTransaction(db, async (tx) => {
      if (await lockUndelivered(tx, emailId)) await deliver(tx, smtp, emailId, mail);
    });
  };
  return {
    send,
    async retryFailed(since) {
      if (!transport) return 0;
      let sent = 0;
      for (const row of await failedMails(db, since, RETRY_BATCH)) {
        const { text, link, lost } = links.open(row);
        // Sealed under another AUTH_SECRET: a mail without its link is of no use, so it stops here.
        if (lost) {
          await markMailFailed(
            db,
            row.id,
            "Its link cannot be opened: AUTH_SECRET changed.",
            new Date(),
          );
          continue;
        }
        if (await deliver(db, transport, row.id, { ...row, text, link: link ?? undefined })) sent++;
      }
      return sent;
    },
    async sendMany(mails, recorded) {
      if (transport) {
        for (const mail of mails) await send(mail, recorded);
        return;
      }
      for (const { id, mail } of await recordMails(db, links, mails, recorded))
        log.info(
          { emailId: id, kind: mail.kind, to: mail.to, link: mail.link },
          "email (outbox only; set SMTP_URL to send)",
        );
    },
  };
}

/**
 * The text sent: a mail's link (the portal signed in, a seat to claim) is what the reader acts on,
 * so it goes at the end of the text where the text does not carry it already.
 */
export function bodyOf(mail: Pick<OutgoingMail, "text" | "link">): string {
  if (!mail.link || mail.text.includes(mail.link)) return mail.text;
  return `${mail.text.trimEnd()}\n\n${mail.link}\n`;
}
