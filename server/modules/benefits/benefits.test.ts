// Benefits through Polar's client: the six types created with their properties and events,
// listed with pagination and filters, read, updated, deleted; another organization's benefit is
// ResourceNotFound. Validation is in benefits-validation.test.ts.
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { describe, expect, it } from "vitest";
import {
  fileId,
  meterId,
  other,
  seller,
  t,
  withBenefitTenants,
} from "../../../test/helpers/benefits.ts";
import { eventsOf, polarFor } from "../../../test/helpers/catalog.ts";
import { issueDiscordGuildToken } from "./discord.ts";

withBenefitTenants();

describe("benefits through Polar's client", () => {
  it("creates the six types with their properties, records benefit.created, lists with pagination and filters", async () => {
    const polar = polarFor(t, seller.token);
    const guildToken = issueDiscordGuildToken(t.config.authSecret, "123456789012345678");
    const custom = await polar.benefits.create({
      type: "custom",
      description: "Priority support",
      properties: { note: "Email us" },
      metadata: { tier: "gold" },
    });
    const discord = await polar.benefits.create({
      type: "discord",
      description: "Discord role",
      properties: { guildToken, roleId: "223456789012345678", kickMember: true },
    });
    const github = await polar.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "acme", repositoryName: "sdk.js", permission: "triage" },
    });
    const downloads = await polar.benefits.create({
      type: "downloadables",
      description: "The book",
      properties: { files: [fileId] },
    });
    const keys = await polar.benefits.create({
      type: "license_keys",
      description: "License key",
      properties: {
        prefix: "ACME",
        expires: { ttl: 1, timeframe: "year" },
        activations: { limit: 3, enableCustomerAdmin: true },
        limitUsage: 100,
      },
    });
    const credits = await polar.benefits.create({
      type: "meter_credit",
      description: "1000 credits",
      properties: { units: 1000, rollover: false, meterId },
    });

    expect(custom).toMatchObject({
      type: "custom",
      properties: { note: "Email us" },
      selectable: true,
      deletable: true,
      isDeleted: false,
      metadata: { tier: "gold" },
    });
    expect(discord.properties).toEqual({
      guildId: "123456789012345678",
      roleId: "223456789012345678",
      kickMember: true,
      guildToken,
    });
    expect(github.properties).toEqual({
      repositoryOwner: "acme",
      repositoryName: "sdk.js",
      permission: "triage",
    });
    expect(downloads.properties).toEqual({ archived: {}, files: [fileId] });
    expect(keys.properties).toEqual({
      prefix: "ACME",
      expires: { ttl: 1, timeframe: "year" },
      activations: { limit: 3, enableCustomerAdmin: true },
      limitUsage: 100,
    });
    expect(credits.properties).toEqual({ units: 1000, rollover: false, meterId });

    const pages = [];
    for await (const page of await polar.benefits.list({ limit: 4, sorting: ["created_at"] }))
      pages.push(page.result);
    expect(pages.flatMap((p) => p.items.map((b) => b.id))).toEqual([
      custom.id,
      discord.id,
      github.id,
      downloads.id,
      keys.id,
      credits.id,
    ]);
    expect(pages[0]!.pagination).toEqual({ totalCount: 6, maxPage: 2 });

    expect(
      (await polar.benefits.list({ typeFilter: ["license_keys", "meter_credit"] })).result.items
        .map((b) => b.id)
        .sort(),
    ).toEqual([keys.id, credits.id].sort());
    expect(
      (await polar.benefits.list({ metadata: { tier: "gold" } })).result.items.map((b) => b.id),
    ).toEqual([custom.id]);
    expect((await polar.benefits.list({ query: "REPO" })).result.items.map((b) => b.id)).toEqual([
      github.id,
    ]);
    const events = (await eventsOf(t, seller.organization.id)).filter(
      (e) => e.type === "benefit.created",
    );
    expect(events).toHaveLength(6);
    expect(events[0]!.payload.data).toMatchObject({
      id: custom.id,
      type: "custom",
      properties: { note: "Email us" },
      visibility: "public",
      visibility_configurable: true,
    });
  });

  it("gets, updates (benefit.updated), lists empty grants, deletes; another organization's benefit is ResourceNotFound", async () => {
    const polar = polarFor(t, seller.token);
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Sticker pack",
      properties: { note: null },
    });
    expect((await polar.benefits.get({ id: benefit.id })).description).toBe("Sticker pack");
    const updated = await polar.benefits.update({
      id: benefit.id,
      requestBody: {
        type: "custom",
        description: "Sticker bundle",
        properties: { note: "Ships in a week" },
      },
    });
    expect(updated).toMatchObject({
      description: "Sticker bundle",
      properties: { note: "Ships in a week" },
    });
    const events = await eventsOf(t, seller.organization.id);
    expect(events.at(-1)).toMatchObject({
      type: "benefit.updated",
      payload: { data: { id: benefit.id, description: "Sticker bundle" } },
    });

    const grants = await polar.benefits.grants({ id: benefit.id });
    expect(grants.result).toEqual({ items: [], pagination: { totalCount: 0, maxPage: 0 } });

    const theirs = polarFor(t, other.token);
    await expect(theirs.benefits.get({ id: benefit.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.benefits.update({
        id: benefit.id,
        requestBody: { type: "custom", description: "Mine now" },
      }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.benefits.delete({ id: benefit.id })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(theirs.benefits.grants({ id: benefit.id })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      theirs.benefits.create({ type: "custom", description: "x", properties: {} }),
    ).rejects.toBeInstanceOf(HTTPValidationError);

    await polar.benefits.delete({ id: benefit.id });
    await expect(polar.benefits.get({ id: benefit.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await polar.benefits.list({ id: benefit.id })).result.items).toEqual([]);
  });
});
