// GET /v1/sandbox/emails: a signed-in user reads the sandbox outbox, limited to mail for themselves
// and invitations to their organizations' members and invitees; machines (organization tokens) and
// strangers do not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createAccessToken, createOrganization, signUp } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(async () => {
  await t?.stop();
});

describe("GET /v1/sandbox/emails", () => {
  it("lists the user's own mail and their organization's members' and invitees', not a stranger's", async () => {
    const seller = await signUp(t.url);
    const stranger = await signUp(t.url);
    const org = await createOrganization(t.url, seller);
    const invited = `Invitee-${Date.now()}@Example.com`;
    const inv = await api(t.url, "/api/auth/organization/invite-member", {
      token: seller.token,
      body: { email: invited, role: "member", organizationId: org.id },
    });
    expect(inv.status).toBe(200);

    const res = await api(t.url, "/v1/sandbox/emails?limit=100", { token: seller.token });
    expect(res.status).toBe(200);
    const to = res.body.items.map((m: { to: string }) => m.to.toLowerCase());
    expect(to).toContain(seller.email.toLowerCase());
    expect(to).toContain(invited.toLowerCase());
    expect(to).not.toContain(stranger.email.toLowerCase());
    const mine = res.body.items.find((m: { to: string }) => m.to === seller.email);
    expect(mine).toMatchObject({
      kind: "verify-email",
      subject: expect.any(String),
      link: expect.stringContaining("/api/auth/verify-email"),
      error: null,
    });
    expect(Object.keys(mine).sort()).toEqual([
      "created_at",
      "error",
      "id",
      "kind",
      "link",
      "sent_at",
      "subject",
      "text",
      "to",
    ]);

    const theirs = await api(t.url, "/v1/sandbox/emails", { token: stranger.token });
    expect(theirs.body.items.map((m: { to: string }) => m.to)).toEqual([stranger.email]);
  });

  it("never shows another user's account mail (password reset, verification) to an inviter", async () => {
    const attacker = await signUp(t.url);
    const victim = await signUp(t.url);
    const org = await createOrganization(t.url, attacker);
    // Inviting the victim's address makes it an invitee of the attacker's organization.
    const inv = await api(t.url, "/api/auth/organization/invite-member", {
      token: attacker.token,
      body: { email: victim.email, role: "member", organizationId: org.id },
    });
    expect(inv.status).toBe(200);
    const reset = await api(t.url, "/api/auth/request-password-reset", {
      body: { email: victim.email, redirectTo: "/reset-password" },
    });
    expect(reset.status).toBe(200);

    const seen = await api(t.url, "/v1/sandbox/emails?limit=100", { token: attacker.token });
    expect(seen.status).toBe(200);
    const theirs = seen.body.items.filter(
      (m: { to: string }) => m.to.toLowerCase() === victim.email.toLowerCase(),
    );
    expect(theirs.map((m: { kind: string }) => m.kind)).toEqual(["invitation"]);
    // The victim still reads their own mail, the reset link included.
    const own = await api(t.url, "/v1/sandbox/emails?limit=100", { token: victim.token });
    expect(own.body.items.map((m: { kind: string }) => m.kind)).toContain("reset-password");
  });

  it("refuses organization tokens and anonymous callers, and validates limit", async () => {
    const seller = await signUp(t.url);
    const org = await createOrganization(t.url, seller);
    const token = await createAccessToken(t.url, seller, org.id, ["products:read"]);
    expect((await api(t.url, "/v1/sandbox/emails", { token })).status).toBe(403);
    expect((await api(t.url, "/v1/sandbox/emails")).status).toBe(401);
    const bad = await api(t.url, "/v1/sandbox/emails?limit=0", { token: seller.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "limit"]);
  });
});

describe("GET /api/auth-providers", () => {
  it("names the configured social providers without their secrets", async () => {
    const res = await api(t.url, "/api/auth-providers");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email_password: true,
      sign_up: true,
      social: [],
      sandbox: true,
      stripe: null,
    });
  });
});
