// The shop of the end-to-end grant suites: a grants server (with its worker) whose Discord and
// GitHub clients talk to the local third-party server, which knows a guild, a Discord user, a
// GitHub user and a private repository; a seller with Polar's client; and the reads the suites
// check grants with. Each suite file gets its own.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { issueDiscordGuildToken } from "../../server/modules/benefits/discord.ts";
import { createSeller } from "./auth.ts";
import { startGrantsServer } from "./grants.ts";
import type { TestServer } from "./server.ts";
import { startThirdPartyServer, type ThirdPartyServer } from "./third-party.ts";

const SCOPES = [
  "customer_sessions:write",
  "products:write",
  "benefits:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:write",
  "orders:read",
  "license_keys:write",
  "files:write",
  "events:write",
  "meters:write",
];
export const GUILD = "900000000000000001";
export const ROLE = "900000000000000002";
export const DISCORD_USER = "800000000000000001";

export let t: TestServer;
export let third: ThirdPartyServer;
export let polar: Polar;
export let token: string;
export let organizationId: string;

/** Registers the suite's third-party server, grants server and seller. */
export function withGrantsShop(): void {
  beforeAll(async () => {
    third = await startThirdPartyServer();
    t = await startGrantsServer(third);
    const seller = await createSeller(t.url, SCOPES);
    organizationId = seller.organization.id;
    token = seller.token;
    polar = new Polar({ accessToken: token, serverURL: t.url });
    third.guilds.set(GUILD, new Map());
    third.discordUsers.add(DISCORD_USER);
    third.githubUsers.set("5001", "octo-buyer");
    third.repos.set("acme/private-sdk", { collaborators: new Map(), invitations: [] });
  });
  afterAll(async () => {
    await t?.stop();
    await third?.stop();
  });
}

export async function grantsOf(customerId: string) {
  return (await polar.benefitGrants.list({ organizationId, customerId, limit: 100 })).result.items;
}

export async function outbox(type: string) {
  return t.server.database.rows<{ payload: { data: Record<string, unknown> } }>(
    sql`select payload from webhook_events where organization_id = ${organizationId} and type = ${type} order by seq`,
  );
}

export async function discordBenefit(description = "Discord role") {
  return polar.benefits.create({
    type: "discord",
    description,
    properties: {
      guildToken: issueDiscordGuildToken(t.config.authSecret, GUILD),
      roleId: ROLE,
      kickMember: false,
    },
  });
}
