// PATCH /v1/customer-portal/benefit-grants/{id} against the local Discord and GitHub servers: a
// customer with two linked GitHub and two Discord accounts moves each grant to the other account
// (the new one gets access, the old one loses it); an account they did not link, a mismatched
// benefit type and bad bodies are 422s that change nothing; another customer's grant, a grant of a
// benefit no longer public and a revoked grant are 404s, as Polar reads only the grants the customer
// may see before updating one; other benefit types answer the grant as it is.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy, eventually, linkAccounts, startGrantsServer } from "../../../test/helpers/grants.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { startThirdPartyServer, type ThirdPartyServer } from "../../../test/helpers/third-party.ts";
import { issueDiscordGuildToken } from "../benefits/discord.ts";

const GUILD = "900000000000000011";
const ROLE = "900000000000000012";
const D1 = "800000000000000011";
const D2 = "800000000000000012";
const EMAIL = "ada-grants@example.com";

let t: TestServer;
let third: ThirdPartyServer;
let polar: Polar;
let sellerToken: string;
let organizationId: string;
let ada: { session: string; grants: Record<string, { id: string }> };
let bobSession: string;

async function session(customerId: string): Promise<string> {
  return (await polar.customerSessions.create({ customerId })).token;
}

const patch = (token: string, id: string, body: unknown) =>
  api(t.url, `/v1/customer-portal/benefit-grants/${id}`, { method: "PATCH", token, body });

async function grantRow(id: string) {
  const [row] = await t.server.database.rows<{
    properties: Record<string, unknown>;
    pending_action: string | null;
  }>(sql`select properties, pending_action from benefit_grants where id = ${id}`);
  return row!;
}

beforeAll(async () => {
  third = await startThirdPartyServer();
  t = await startGrantsServer(third);
  const seller = await createSeller(t.url, [
    "customer_sessions:write",
    "products:write",
    "benefits:write",
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
  ]);
  organizationId = seller.organization.id;
  sellerToken = seller.token;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  third.guilds.set(GUILD, new Map([[D2, new Set<string>()]]));
  third.discordUsers.add(D1).add(D2);
  third.githubUsers.set("6001", "octo-one").set("6002", "octo-two");
  third.repos.set("acme/tools", { collaborators: new Map(), invitations: [] });

  // Ada signed in with GitHub 6001 and Discord D1, and linked 6002 and D2 to the same user later.
  await linkAccounts(t, EMAIL, { discord: D1, github: "6001" });
  await t.server.database.rows(
    sql`insert into account (account_id, provider_id, user_id, access_token, scope, updated_at)
        select a, p, u.id, 'token', '', now() - interval '1 day'
        from "user" u, (values ('6002', 'github'), (${D2}, 'discord')) v(a, p)
        where u.email = ${EMAIL}`,
  );
  const benefits = {
    github_repository: await polar.benefits.create({
      type: "github_repository",
      description: "Tools repository",
      properties: { repositoryOwner: "acme", repositoryName: "tools", permission: "pull" },
    }),
    discord: await polar.benefits.create({
      type: "discord",
      description: "Discord role",
      properties: {
        guildToken: issueDiscordGuildToken(t.config.authSecret, GUILD),
        roleId: ROLE,
        kickMember: false,
      },
    }),
    license_keys: await polar.benefits.create({
      type: "license_keys",
      description: "Key",
      properties: {},
    }),
  };
  const product = await polar.products.create({
    name: "Toolkit",
    prices: [{ amountType: "fixed", priceAmount: 3000, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: Object.values(benefits).map((b) => b.id) },
  });
  const order = await buy(polar, organizationId, product.id, EMAIL);
  const grants = await eventually(
    async () => {
      const items = (
        await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
      ).result.items;
      return items.length === 3 && items.every((g) => g.isGranted) ? items : undefined;
    },
    30_000,
    "Ada's three grants",
  );
  const byType = (id: string) => grants.find((g) => g.benefitId === id)!;
  ada = {
    session: await session(order.customerId),
    grants: {
      github_repository: byType(benefits.github_repository.id),
      discord: byType(benefits.discord.id),
      license_keys: byType(benefits.license_keys.id),
    },
  };
  const bob = await buy(polar, organizationId, product.id, "bob-grants@example.com");
  bobSession = await session(bob.customerId);
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await third?.stop();
});

describe("PATCH /v1/customer-portal/benefit-grants/{id}", () => {
  it("moves a GitHub grant to another linked account: invited, and the old one removed", async () => {
    const repo = third.repos.get("acme/tools")!;
    expect(repo.invitations.map((i) => i.login)).toEqual(["octo-one"]);
    const id = ada.grants.github_repository!.id;
    const res = await patch(ada.session, id, {
      benefit_type: "github_repository",
      properties: { account_id: "6002" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, properties: { account_id: "6002" } });
    expect(res.body.customer).toHaveProperty("oauth_accounts");
    await eventually(
      async () => repo.invitations.map((i) => i.login).join() === "octo-two",
      20_000,
      "the invitation to move to octo-two",
    );
    const row = await eventually(async () => {
      const r = await grantRow(id);
      return r.pending_action === null ? r : undefined;
    });
    expect(row.properties).toMatchObject({ account_id: "6002", granted_account_id: "octo-two" });
  });

  it("moves a Discord grant to another linked account: the role follows", async () => {
    const guild = third.guilds.get(GUILD)!;
    expect([...(guild.get(D1) ?? [])]).toEqual([ROLE]);
    const res = await patch(ada.session, ada.grants.discord!.id, {
      benefit_type: "discord",
      properties: { account_id: D2 },
    });
    expect(res.status).toBe(200);
    await eventually(
      async () => guild.get(D2)?.has(ROLE) && !guild.get(D1)?.has(ROLE),
      20_000,
      "the role on D2 only",
    );
  });

  it("refuses an account the customer did not link and a mismatched type: 422, unchanged", async () => {
    const id = ada.grants.github_repository!.id;
    const before = await grantRow(id);
    for (const [body, loc] of [
      [
        { benefit_type: "github_repository", properties: { account_id: "6003" } },
        ["body", "properties", "account_id"],
      ],
      [{ benefit_type: "discord", properties: { account_id: D1 } }, ["body", "benefit_type"]],
      [{ benefit_type: "github_repository" }, ["body", "properties"]],
      [{ benefit_type: "nonsense" }, ["body", "benefit_type"]],
      [{}, ["body", "benefit_type"]],
    ] as const) {
      const res = await patch(ada.session, id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect(await grantRow(id)).toEqual(before);
  });

  it("answers other benefit types as they are", async () => {
    const id = ada.grants.license_keys!.id;
    const before = await grantRow(id);
    const res = await patch(ada.session, id, { benefit_type: "license_keys" });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(await grantRow(id)).toEqual(before);
  });

  it("another customer's grant is a 404, and nothing changes", async () => {
    const id = ada.grants.github_repository!.id;
    const before = await grantRow(id);
    const res = await patch(bobSession, id, {
      benefit_type: "github_repository",
      properties: { account_id: null },
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("ResourceNotFound");
    expect(await grantRow(id)).toEqual(before);
    expect((await patch("", id, { benefit_type: "license_keys" })).status).toBe(401);
  });

  it("a grant of a benefit made private or draft is a 404, and nothing changes", async () => {
    const id = ada.grants.discord!.id;
    const benefitId = (
      await polar.benefitGrants.list({ organizationId, limit: 100 })
    ).result.items.find((g) => g.id === id)!.benefitId;
    const visibility = (value: string) =>
      api(t.url, `/v1/benefits/${benefitId}`, {
        method: "PATCH",
        token: sellerToken,
        body: { type: "discord", visibility: value },
      });
    const before = await grantRow(id);
    for (const value of ["private", "draft"]) {
      expect((await visibility(value)).status).toBe(200);
      const res = await patch(ada.session, id, {
        benefit_type: "discord",
        properties: { account_id: D1 },
      });
      expect(res.status, value).toBe(404);
      expect(res.body).toEqual({ error: "ResourceNotFound", detail: "Benefit grant not found." });
    }
    expect(await grantRow(id)).toEqual(before);
    expect((await visibility("public")).status).toBe(200);
    // Public again, the same grant is the customer's to update (its own account: a no-op).
    const res = await patch(ada.session, id, {
      benefit_type: "discord",
      properties: { account_id: before.properties.account_id },
    });
    expect(res.status).toBe(200);
    expect(await grantRow(id)).toEqual(before);
  });

  it("a revoked grant is a 404 ResourceNotFound, as Polar reads only unrevoked grants", async () => {
    const id = ada.grants.license_keys!.id;
    expect((await patch(ada.session, id, { benefit_type: "license_keys" })).status).toBe(200);
    await t.server.database.rows(
      sql`update benefit_grants set revoked_at = now(), granted_at = null where id = ${id}`,
    );
    const before = await grantRow(id);
    const res = await patch(ada.session, id, { benefit_type: "license_keys" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "ResourceNotFound", detail: "Benefit grant not found." });
    expect(await grantRow(id)).toEqual(before);
  });
});
