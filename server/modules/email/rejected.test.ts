// A permanent SMTP refusal (a 5xx reply: no such user) is recorded with the reply and never sent
// again; a temporary one (4xx) is retried. Before, the retry job sent a 550-refused message again
// every minute for a day.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../../test/helpers/db.ts";
import { type LocalSmtp, startSmtp } from "../../../test/helpers/smtp-server.ts";
import { loadConfig } from "../../config.ts";
import { createLogger } from "../../lib/logger.ts";
import { createMailer } from "./mailer.ts";

let testDb: TestDatabase;
let smtp: LocalSmtp;
beforeAll(async () => {
  testDb = await openTestDatabase();
  smtp = await startSmtp(0, {
    reject: (to) =>
      to.startsWith("nobody")
        ? { code: 550, message: "5.1.1 No such user" }
        : to.startsWith("busy")
          ? { code: 451, message: "4.3.0 Try again later" }
          : null,
  });
});
afterAll(async () => {
  await smtp?.close();
  await testDb?.dispose();
});

describe("an SMTP refusal", () => {
  it("5xx: failed for good with the reply, not retried; 4xx: retried", async () => {
    const config = loadConfig({
      command: "test",
      env: {
        AUTH_SECRET: "s".repeat(40),
        TILL_DATA_DIR: "/tmp/till-config-test",
        TILL_PAYMENTS: "none",
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        EMAIL_FROM: "till <mail@till.test>",
      },
    });
    const db = testDb.database.db;
    const mailer = await createMailer({ config, db, log: createLogger(config.log) });
    const since = new Date(Date.now() - 60_000);
    for (const to of ["nobody@example.com", "busy@example.com"])
      await mailer.send({ kind: "receipt", to, subject: "Your receipt", text: "Thanks" });

    const rows = await testDb.database.rows<{
      to: string;
      error: string | null;
      rejected: boolean;
    }>(
      sql`select "to", error, rejected_at is not null as rejected from email_outbox order by "to"`,
    );
    expect(rows).toEqual([
      { to: "busy@example.com", error: expect.stringContaining("451"), rejected: false },
      {
        to: "nobody@example.com",
        error: expect.stringContaining("550 5.1.1 No such user"),
        rejected: true,
      },
    ]);

    await mailer.retryFailed!(since);
    await mailer.retryFailed!(since);
    const attempts = (to: string) => smtp.recipients.filter((r) => r === to).length;
    expect(attempts("nobody@example.com")).toBe(1);
    expect(attempts("busy@example.com")).toBe(3);
  });
});
