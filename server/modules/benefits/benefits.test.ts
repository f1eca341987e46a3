import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  countRows,
  eventsOf,
  insertMeter,
  polarFor,
  startCatalogServer,
  uploadFile,
} from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { issueDiscordGuildToken } from "./discord.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
let meterId: string;
let fileId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, ["benefits:write", "files:write"]);
  other = await createSeller(t.url, ["benefits:write", "files:write"]);
  meterId = await insertMeter(t, seller.organization.id);
  fileId = (
    await uploadFile(t, seller.token, Buffer.from("the book"), {
      service: "downloadable",
      name: "book.pdf",
      mimeType: "application/pdf",
    })
  ).file.id;
});
afterAll(() => t?.stop());

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

describe("benefit validation (raw HTTP): 422 in Polar's shape, nothing written", () => {
  const custom = { type: "custom", description: "Valid description", properties: { note: "n" } };
  const cases: [string, () => Record<string, unknown>, (string | number)[]][] = [
    ["description too short", () => ({ ...custom, description: "ab" }), ["body", "description"]],
    [
      "description too long",
      () => ({ ...custom, description: "x".repeat(43) }),
      ["body", "description"],
    ],
    ["an unsupported type", () => ({ ...custom, type: "feature_flag" }), ["body", "type"]],
    ["a bad visibility", () => ({ ...custom, visibility: "secret" }), ["body", "visibility"]],
    [
      "too many metadata keys",
      () => ({
        ...custom,
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
      }),
      ["body", "metadata"],
    ],
    [
      "a metadata string over 500 characters",
      () => ({ ...custom, metadata: { k: "x".repeat(501) } }),
      ["body", "metadata", "k"],
    ],
    [
      "a metadata value that is an object",
      () => ({ ...custom, metadata: { k: { nested: true } } }),
      ["body", "metadata", "k"],
    ],
    [
      "discord without kick_member",
      () => ({
        type: "discord",
        description: "Discord",
        properties: {
          guild_token: issueDiscordGuildToken(t.config.authSecret, "123456789012345678"),
          role_id: "223456789012345678",
        },
      }),
      ["body", "properties", "kick_member"],
    ],
    [
      "discord with a forged guild token",
      () => ({
        type: "discord",
        description: "Discord",
        properties: {
          guild_token: issueDiscordGuildToken(
            "another-secret-that-is-long-enough!!",
            "123456789012345678",
          ),
          role_id: "223456789012345678",
          kick_member: false,
        },
      }),
      ["body", "properties", "guild_token"],
    ],
    [
      "discord with a role id that is not a snowflake",
      () => ({
        type: "discord",
        description: "Discord",
        properties: {
          guild_token: issueDiscordGuildToken(t.config.authSecret, "123456789012345678"),
          role_id: "admins",
          kick_member: false,
        },
      }),
      ["body", "properties", "role_id"],
    ],
    [
      "github with an unknown permission",
      () => ({
        type: "github_repository",
        description: "Repo",
        properties: { repository_owner: "acme", repository_name: "sdk", permission: "owner" },
      }),
      ["body", "properties", "permission"],
    ],
    [
      "github with a bad owner",
      () => ({
        type: "github_repository",
        description: "Repo",
        properties: { repository_owner: "-acme", repository_name: "sdk", permission: "pull" },
      }),
      ["body", "properties", "repository_owner"],
    ],
    [
      "downloadables without files",
      () => ({ type: "downloadables", description: "Files", properties: { files: [] } }),
      ["body", "properties", "files"],
    ],
    [
      "downloadables with another organization's file",
      () => ({ type: "downloadables", description: "Files", properties: { files: [otherFileId] } }),
      ["body", "properties", "files", 0],
    ],
    [
      "downloadables archiving a file it does not offer",
      () => ({
        type: "downloadables",
        description: "Files",
        properties: { files: [fileId], archived: { [otherFileId]: true } },
      }),
      ["body", "properties", "archived"],
    ],
    [
      "license keys with a zero ttl",
      () => ({
        type: "license_keys",
        description: "Keys",
        properties: { expires: { ttl: 0, timeframe: "year" } },
      }),
      ["body", "properties", "expires", "ttl"],
    ],
    [
      "license keys with a bad timeframe",
      () => ({
        type: "license_keys",
        description: "Keys",
        properties: { expires: { ttl: 1, timeframe: "week" } },
      }),
      ["body", "properties", "expires", "timeframe"],
    ],
    [
      "license keys with zero activations",
      () => ({
        type: "license_keys",
        description: "Keys",
        properties: { activations: { limit: 0, enable_customer_admin: false } },
      }),
      ["body", "properties", "activations", "limit"],
    ],
    [
      "license keys with a negative usage limit",
      () => ({ type: "license_keys", description: "Keys", properties: { limit_usage: -1 } }),
      ["body", "properties", "limit_usage"],
    ],
    [
      "meter credit with zero units",
      () => ({
        type: "meter_credit",
        description: "Credits",
        properties: { units: 0, rollover: true, meter_id: meterId },
      }),
      ["body", "properties", "units"],
    ],
    [
      "meter credit with another organization's meter",
      () => ({
        type: "meter_credit",
        description: "Credits",
        properties: { units: 5, rollover: true, meter_id: otherMeterId },
      }),
      ["body", "properties", "meter_id"],
    ],
    [
      "meter credit with an archived meter",
      () => ({
        type: "meter_credit",
        description: "Credits",
        properties: { units: 5, rollover: true, meter_id: archivedMeterId },
      }),
      ["body", "properties", "meter_id"],
    ],
  ];
  let otherFileId = "";
  let otherMeterId = "";
  let archivedMeterId = "";
  beforeAll(async () => {
    otherFileId = (
      await uploadFile(t, other.token, Buffer.from("theirs"), {
        service: "downloadable",
        name: "x.bin",
        mimeType: "application/octet-stream",
      })
    ).file.id;
    otherMeterId = await insertMeter(t, other.organization.id);
    archivedMeterId = await insertMeter(t, seller.organization.id, "old", true);
  });
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = [await countRows(t, "benefits"), await countRows(t, "webhook_events")];
      const res = await api(t.url, "/v1/benefits/", { token: seller.token, body: body() });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
      expect([await countRows(t, "benefits"), await countRows(t, "webhook_events")]).toEqual(
        before,
      );
    });
  }

  it("an update that changes the type or breaks a property → 422, benefit and outbox unchanged", async () => {
    const created = await api(t.url, "/v1/benefits/", {
      token: seller.token,
      body: {
        type: "meter_credit",
        description: "Credits",
        properties: { units: 5, rollover: true, meter_id: meterId },
      },
    });
    const id = created.body.id;
    const before = await countRows(t, "webhook_events");
    const retype = await api(t.url, `/v1/benefits/${id}`, {
      method: "PATCH",
      token: seller.token,
      body: { type: "custom", description: "Other" },
    });
    expect(retype.status).toBe(422);
    expect(retype.body.detail[0].loc).toEqual(["body", "type"]);
    const badMeter = await api(t.url, `/v1/benefits/${id}`, {
      method: "PATCH",
      token: seller.token,
      body: {
        type: "meter_credit",
        description: "Changed",
        properties: { units: 5, rollover: true, meter_id: otherMeterId },
      },
    });
    expect(badMeter.status).toBe(422);
    expect((await api(t.url, `/v1/benefits/${id}`, { token: seller.token })).body).toMatchObject({
      description: "Credits",
      properties: { meter_id: meterId },
    });
    expect(await countRows(t, "webhook_events")).toBe(before);
  });
});
