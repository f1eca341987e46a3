import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  createAccessToken,
  createOrganization,
  signUp,
  type TestUser,
} from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  alice = await signUp(t.url);
  bob = await signUp(t.url);
});
afterAll(() => t.stop());

describe("/v1/organizations", () => {
  it("a signed-in user creates an organization (201, every key of Polar's Organization) and becomes its owner", async () => {
    const res = await api(t.url, "/v1/organizations/", {
      token: alice.token,
      body: { name: "Acme", slug: "acme-inc", email: "billing@acme.test" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Acme",
      slug: "acme-inc",
      email: "billing@acme.test",
      status: "created",
      default_presentment_currency: "usd",
    });
    for (const key of [
      "created_at",
      "modified_at",
      "avatar_url",
      "website",
      "socials",
      "details_submitted_at",
      "feature_settings",
      "subscription_settings",
      "customer_email_settings",
      "customer_portal_settings",
      "capabilities",
      "account_id",
    ]) {
      expect(res.body).toHaveProperty(key);
    }
    expect(res.body.created_at).toMatch(/(Z|\+00:00)$/);
    const list = await api(t.url, "/v1/organizations/?page=1&limit=10", { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total_count: 1, max_page: 1 });
    expect(list.body.items[0].id).toBe(res.body.id);
  });

  it("a duplicate slug is a 422 on body.slug and creates nothing", async () => {
    const res = await api(t.url, "/v1/organizations/", {
      token: bob.token,
      body: { name: "Other", slug: "acme-inc" },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "slug"]);
    expect((await api(t.url, "/v1/organizations/", { token: bob.token })).body.items).toEqual([]);
  });

  it("requests racing for one slug: one organization, every other request a 422 on body.slug", async () => {
    const racer = await signUp(t.url);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        api(t.url, "/v1/organizations/", {
          token: racer.token,
          body: { name: "Racing", slug: "racing-slug" },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422))
      expect(r.body.detail[0].loc).toEqual(["body", "slug"]);
    const mine = await api(t.url, "/v1/organizations/", { token: racer.token });
    expect(mine.body.items.map((o: { slug: string }) => o.slug)).toEqual(["racing-slug"]);
  });

  it("another user's organization is a 404; no token is a 401", async () => {
    const org = await createOrganization(t.url, alice, "Private");
    expect((await api(t.url, `/v1/organizations/${org.id}`, { token: bob.token })).status).toBe(
      404,
    );
    const anon = await api(t.url, `/v1/organizations/${org.id}`);
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: "Unauthorized", detail: "Unauthorized" });
  });

  it("PATCH updates the profile and records organization.updated in the outbox", async () => {
    const org = await createOrganization(t.url, alice, "Patchy");
    const res = await api(t.url, `/v1/organizations/${org.id}`, {
      method: "PATCH",
      token: alice.token,
      body: {
        website: "https://patchy.test",
        subscription_settings: {
          allow_multiple_subscriptions: true,
          proration_behavior: "invoice",
          benefit_revocation_grace_period: 3,
          prevent_trial_abuse: true,
          allow_customer_updates: false,
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.website).toBe("https://patchy.test");
    expect(res.body.proration_behavior).toBe("invoice");
    const { sql } = await import("drizzle-orm");
    const events = await t.server.database.rows<{
      type: string;
      payload: { data: { id: string; website: string } };
    }>(sql`select type, payload from webhook_events where organization_id = ${org.id}`);
    expect(events.map((e) => e.type)).toEqual(["organization.updated"]);
    expect(events[0]!.payload.data).toMatchObject({ id: org.id, website: "https://patchy.test" });
  });

  it("Polar's client parses the organization; notification settings can be changed", async () => {
    const org = await createOrganization(t.url, alice, "Parsed");
    const token = await createAccessToken(t.url, alice, org.id, ["organizations:read"]);
    const { Polar } = await import("@polar-sh/sdk");
    const parsed = await new Polar({ accessToken: token, serverURL: t.url }).organizations.get({
      id: org.id,
    });
    expect(parsed.notificationSettings).toEqual({ newOrder: true, newSubscription: true });
    const res = await api(t.url, `/v1/organizations/${org.id}`, {
      method: "PATCH",
      token: alice.token,
      body: { notification_settings: { new_order: false } },
    });
    expect(res.body.notification_settings).toMatchObject({
      new_order: false,
      new_subscription: true,
    });
  });

  it("an organization access token reads its own organization only and cannot create organizations", async () => {
    const org = await createOrganization(t.url, alice, "Tokened");
    const token = await createAccessToken(t.url, alice, org.id, ["organizations:read"]);
    expect(token).toMatch(/^till_oat_/);
    const list = await api(t.url, "/v1/organizations/", { token });
    expect(list.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);
    const patch = await api(t.url, `/v1/organizations/${org.id}`, {
      method: "PATCH",
      token,
      body: { name: "Nope" },
    });
    expect(patch.status).toBe(403);
    const create = await api(t.url, "/v1/organizations/", {
      token,
      body: { name: "X", slug: "x-from-token" },
    });
    expect(create.status).toBe(403);
  });
});
