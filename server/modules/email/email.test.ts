// Mail delivery: with SMTP_URL the verification mail goes through nodemailer to a real SMTP server
// (smtp-server, in process) and the outbox row is marked sent; without it the outbox keeps it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { type LocalSmtp, type ReceivedMail, startSmtp } from "../../../test/helpers/smtp-server.ts";

let smtp: LocalSmtp;
let received: ReceivedMail[];
let t: TestServer;
let failing: TestServer;
beforeAll(async () => {
  smtp = await startSmtp();
  received = smtp.received;
  t = await startTestServer({
    env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, EMAIL_FROM: "till <mail@till.test>" },
  });
  // Nothing listens on port 1: delivery fails, the outbox keeps the message with the error.
  failing = await startTestServer({ env: { SMTP_URL: "smtp://127.0.0.1:1" } });
});
afterAll(async () => {
  await Promise.all([t?.stop(), failing?.stop()]);
  await smtp.close();
});

describe("email delivery", () => {
  it("SMTP_URL: the verification mail is delivered over SMTP with its link, and the outbox row is marked sent", async () => {
    const email = uniqueEmail("smtp");
    await browser(t.url).client.signUp.email({
      email,
      password: "correct horse battery",
      name: "Mail",
    });
    const mail = received.find((m) => m.to.includes(email));
    expect(mail).toBeDefined();
    expect(mail!.from).toBe("mail@till.test");
    expect(mail!.data).toContain("Subject: Verify your email for till");
    expect(mail!.data.replace(/=\r?\n/g, "")).toContain(`${t.url}/api/auth/verify-email?token=`);
    const [row] = await t.server.database.rows<{ sent_at: Date | null; error: string | null }>(
      sql`select sent_at, error from email_outbox where "to" = ${email}`,
    );
    expect(row!.sent_at).not.toBeNull();
    expect(row!.error).toBeNull();
  });

  it("a failed delivery keeps the message in the outbox with the error and does not fail the sign-up", async () => {
    const email = uniqueEmail("bounce");
    const res = await browser(failing.url).client.signUp.email({
      email,
      password: "correct horse battery",
      name: "Mail",
    });
    expect(res.error).toBeNull();
    const [row] = await failing.server.database.rows<{
      sent_at: Date | null;
      error: string | null;
      link: string;
    }>(sql`select sent_at, error, link from email_outbox where "to" = ${email}`);
    expect(row!.sent_at).toBeNull();
    expect(row!.error).toEqual(expect.any(String));
    expect(row!.link).toContain("/api/auth/verify-email?token=");
  });
});
