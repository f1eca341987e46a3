// Mail delivery: with SMTP_URL the verification mail goes through nodemailer to a real SMTP server
// (smtp-server, in process) and the outbox row is marked sent; without it the outbox keeps it. The
// outbox keeps a mail's link sealed: its token is not readable from the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { browser, openMailLink, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { type LocalSmtp, type ReceivedMail, startSmtp } from "../../../test/helpers/smtp-server.ts";
import { createMailer } from "./mailer.ts";

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

  it("the outbox keeps the link sealed, without its token; the mail carries the link, which works", async () => {
    const email = uniqueEmail("sealed");
    await browser(t.url).client.signUp.email({
      email,
      password: "correct horse battery",
      name: "Sealed",
    });
    const mail = received.find((m) => m.to.includes(email));
    // The body as the reader sees it: quoted-printable soft breaks and escapes undone.
    const body = mail!.data
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    const link = /https?:\/\/\S+\/api\/auth\/verify-email\?\S+/.exec(body)![0];
    const token = new URL(link).searchParams.get("token")!;
    expect(token.length).toBeGreaterThan(10);
    const [row] = await t.server.database.rows<{ link: string; text: string }>(
      sql`select link, text from email_outbox where "to" = ${email}`,
    );
    expect(row!.link).not.toContain(token);
    expect(row!.text).not.toContain(token);
    expect(row!.link).not.toContain("verify-email");
    expect(openMailLink(row!.link)).toBe(link);
    // The link the mail carried verifies the address.
    const res = await fetch(link, { redirect: "manual" });
    expect(res.status).toBeLessThan(400);
    const [user] = await t.server.database.rows<{ email_verified: boolean }>(
      sql`select email_verified from "user" where email = ${email}`,
    );
    expect(user!.email_verified).toBe(true);
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
    expect(openMailLink(row!.link)).toContain("/api/auth/verify-email?token=");

    // Sent again by the retry job, once a relay answers, it carries its link opened, not sealed.
    const relay = await createMailer({
      config: t.config,
      db: failing.server.database.db,
      log: failing.server.log,
    });
    expect(await relay.retryFailed!(new Date(Date.now() - 3_600_000))).toBeGreaterThan(0);
    const resent = received.find((m) => m.to.includes(email));
    expect(resent!.data.replace(/=\r?\n/g, "").replace(/=3D/g, "=")).toContain(
      openMailLink(row!.link),
    );
  });

  it("a mail sealed under another AUTH_SECRET is not sent again without its link", async () => {
    const email = uniqueEmail("rotated");
    const res = await browser(failing.url).client.signUp.email({
      email,
      password: "correct horse battery",
      name: "Mail",
    });
    expect(res.error).toBeNull();
    // The secret changed since the mail was written: its link no longer opens.
    const relay = await createMailer({
      config: { ...t.config, authSecret: "another secret, forty characters or more" },
      db: failing.server.database.db,
      log: failing.server.log,
    });
    await relay.retryFailed!(new Date(Date.now() - 3_600_000));
    expect(received.find((m) => m.to.includes(email))).toBeUndefined();
    const [row] = await failing.server.database.rows<{
      error: string | null;
      rejected_at: string | null;
    }>(sql`select error, rejected_at from email_outbox where "to" = ${email}`);
    expect(row!.error).toBe("Its link cannot be opened: AUTH_SECRET changed.");
    // Not tried again: marked rejected.
    expect(row!.rejected_at).not.toBeNull();
  });
});
