// A customer changes their email from the portal: the new address receives a link; checking and
// verifying its token makes it the customer's verified email (customer.updated), tells the old
// address, and returns a new session; a link works once and expires after 30 minutes; an address
// another customer has is refused and uses the request up; a second request replaces the first.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { TestClock } from "../../lib/clock.ts";

const clock = new TestClock();
let t: TestServer;
let seller: string;
const base = "/v1/customer-portal/customers/me/email-update";

beforeAll(async () => {
  t = await startTestServer({ clock });
  seller = (await createSeller(t.url, ["customers:write", "customer_sessions:write"])).token;
});
afterAll(() => t.stop());

async function customerWithSession(email: string) {
  const c = await api(t.url, "/v1/customers/", { token: seller, body: { email, name: "Ada" } });
  const s = await api(t.url, "/v1/customer-sessions/", {
    token: seller,
    body: { customer_id: c.body.id },
  });
  return { id: c.body.id as string, session: s.body.token as string };
}

async function lastLinkTo(email: string) {
  const [row] = await t.server.database.rows<{ link: string; kind: string }>(
    sql`select link, kind from email_outbox where "to" = ${email} and link is not null
        order by created_at desc limit 1`,
  );
  return row
    ? { kind: row.kind, token: new URL(openMailLink(row.link)).searchParams.get("token")! }
    : null;
}

const check = (token: string) => api(t.url, `${base}/check?token=${encodeURIComponent(token)}`);
const verify = (token: string) => api(t.url, `${base}/verify`, { body: { token } });

describe("portal email update", () => {
  it("verifies the new address, tells the old one and opens a new session; the link works once", async () => {
    const ada = await customerWithSession("ada.old@example.com");
    const same = await api(t.url, `${base}/request`, {
      token: ada.session,
      body: { email: "ADA.old@example.com" },
    });
    expect(same.status).toBe(422);
    expect((await api(t.url, `${base}/request`, { body: { email: "x@example.com" } })).status).toBe(
      401,
    );
    expect(
      (await api(t.url, `${base}/request`, { token: ada.session, body: { email: "nope" } })).status,
    ).toBe(422);

    const asked = await api(t.url, `${base}/request`, {
      token: ada.session,
      body: { email: "ada.new@example.com" },
    });
    expect(asked.status).toBe(202);
    const mail = (await lastLinkTo("ada.new@example.com"))!;
    expect(mail.kind).toBe("customer-email-update");
    expect(mail.token).toMatch(/^till_cev_/);
    expect((await check(mail.token)).status).toBe(204);
    expect((await check("till_cev_forged")).status).toBe(401);

    const verified = await verify(mail.token);
    expect(verified.status).toBe(200);
    expect(verified.body.token).toMatch(/^till_cst_/);
    const customer = await api(t.url, `/v1/customers/${ada.id}`, { token: seller });
    expect(customer.body).toMatchObject({ email: "ada.new@example.com", email_verified: true });
    const me = await api(t.url, "/v1/customer-portal/customers/me", { token: verified.body.token });
    expect(me.body.email).toBe("ada.new@example.com");
    const [told] = await t.server.database.rows<{ kind: string }>(
      sql`select kind from email_outbox where "to" = 'ada.old@example.com'`,
    );
    expect(told?.kind).toBe("customer-email-changed");
    const [event] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_events where type = 'customer.updated' and payload->'data'->>'id' = ${ada.id}`,
    );
    expect(event!.n).toBe(1);

    expect((await verify(mail.token)).status).toBe(401);
    expect((await check(mail.token)).status).toBe(401);
  });

  it("refuses an address another customer has, replaces an earlier request, and expires", async () => {
    await customerWithSession("taken@example.com");
    const bob = await customerWithSession("bob@example.com");
    const ask = (email: string) =>
      api(t.url, `${base}/request`, { token: bob.session, body: { email } });
    await ask("taken@example.com");
    const taken = (await lastLinkTo("taken@example.com"))!;
    const refused = await verify(taken.token);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(["body", "token"]);
    expect((await verify(taken.token)).status).toBe(401);

    await ask("bob.first@example.com");
    const first = (await lastLinkTo("bob.first@example.com"))!;
    await ask("bob.second@example.com");
    const second = (await lastLinkTo("bob.second@example.com"))!;
    expect((await check(first.token)).status).toBe(401);
    expect((await check(second.token)).status).toBe(204);
    clock.advance(31 * 60_000);
    expect((await verify(second.token)).status).toBe(401);
    const customer = await api(t.url, `/v1/customers/${bob.id}`, { token: seller });
    expect(customer.body.email).toBe("bob@example.com");
  });
});
