// A local SMTP server (smtp-server) for tests of mail delivery: collects every message it accepts.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface LocalSmtp {
  port: number;
  received: ReceivedMail[];
  /** Every RCPT TO the server was given, accepted or not, in order. */
  recipients: string[];
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port` (0: a free one). `reject` answers a recipient's refusal, as the reply
 * code and text (e.g. 550 for no such user, 451 for try later), or null to accept it. `slowMs`
 * holds each accepted message's reply that long: a slow relay.
 */
export async function startSmtp(
  port = 0,
  options: {
    reject?: (to: string) => { code: number; message: string } | null;
    slowMs?: number;
  } = {},
): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  const recipients: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onRcptTo(address, _session, callback) {
      recipients.push(address.address);
      const refusal = options.reject?.(address.address);
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (c: Buffer) => (data += c.toString()));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        setTimeout(callback, options.slowMs ?? 0);
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(port, "127.0.0.1", () => r()));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    received,
    recipients,
    close: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}
