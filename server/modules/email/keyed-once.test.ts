// A mail a job sends under a key is delivered once even when two runs of the job send it at the same
// time, the first still waiting on a slow SMTP relay when the second comes: the second waits for the
// first's delivery and sends nothing. Before, both found the row undelivered and sent it. On
// embedded PGlite one process owns the database, so runs never meet and the row is not locked.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usingPostgres } from "../../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { type LocalSmtp, startSmtp } from "../../../test/helpers/smtp-server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { createMailer } from "./mailer.ts";

let smtp: LocalSmtp;
let t: TestServer;

describe.skipIf(!usingPostgres())("a keyed mail sent by two runs at once", () => {
  beforeAll(async () => {
    smtp = await startSmtp(0, { slowMs: 1500 });
    t = await startTestServer({
      env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, EMAIL_FROM: "till <mail@till.test>" },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it("is delivered once, and recorded sent", async () => {
    // Two runs, as two workers would have: each its own mailer on the one database.
    const deps = { config: t.config, db: t.server.database.db, log: t.server.log };
    const [first, second] = [await createMailer(deps), await createMailer(deps)];
    const mail = {
      kind: "test",
      to: `once-${randomUUID()}@example.com`,
      subject: "Once",
      text: "Sent once.",
      key: `test:${randomUUID()}`,
    };
    const sending = first.send(mail);
    await waitFor(() => smtp.recipients.includes(mail.to), 10_000, "the first run at the relay");
    await second.send(mail);
    await sending;
    expect(smtp.received.filter((m) => m.to.includes(mail.to))).toHaveLength(1);
    const rows = await t.server.database.rows<{ sent_at: Date | null; error: string | null }>(
      sql`select sent_at, error from email_outbox where dedup_key = ${mail.key}`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sent_at).not.toBeNull();
    expect(rows[0]!.error).toBeNull();
  });
});
