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
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` (0: a free one). */
export async function startSmtp(port = 0): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (c: Buffer) => (data += c.toString()));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(port, "127.0.0.1", () => r()));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}
