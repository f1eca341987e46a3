// Outgoing mail. Every message is recorded in the outbox table first; with SMTP_URL it is then sent
// through nodemailer, otherwise the log line with its link is how a developer in `till dev` reads it.
import type { Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { Logger } from "../../lib/logger.ts";
import {
  insertMail,
  insertMails,
  markMailFailed,
  markMailSent,
  type OutgoingMail,
} from "./repository.ts";

export type { OutgoingMail };

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  /** Many mails (a burst of receipts); without SMTP their outbox rows are one insert. */
  sendMany?(mails: OutgoingMail[]): Promise<void>;
}

export async function createMailer(deps: {
  config: Readonly<Config>;
  db: Db;
  log: Logger;
}): Promise<Mailer> {
  const { config, db, log } = deps;
  let transport: { sendMail(opts: object): Promise<unknown> } | null = null;
  if (config.email.smtpUrl) {
    const nodemailer = await import("nodemailer");
    transport = nodemailer.createTransport(config.email.smtpUrl);
  }
  const send = async (mail: OutgoingMail) => {
    const emailId = await insertMail(db, mail);
    if (!transport) {
      log.info(
        { emailId, kind: mail.kind, to: mail.to, link: mail.link },
        "email (outbox only; set SMTP_URL to send)",
      );
      return;
    }
    try {
      await transport.sendMail({
        from: config.email.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      await markMailSent(db, emailId, new Date());
    } catch (err) {
      log.error({ err, emailId, kind: mail.kind }, "email delivery failed");
      await markMailFailed(db, emailId, String((err as Error).message));
    }
  };
  return {
    send,
    async sendMany(mails) {
      if (transport) {
        for (const mail of mails) await send(mail);
        return;
      }
      const ids = await insertMails(db, mails);
      for (const [i, mail] of mails.entries())
        log.info(
          { emailId: ids[i], kind: mail.kind, to: mail.to, link: mail.link },
          "email (outbox only; set SMTP_URL to send)",
        );
    },
  };
}
