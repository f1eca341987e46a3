// Benefit validation over raw HTTP: every bad create and update is a 422 in Polar's shape, and
// nothing is written (no benefit, no outbox event).
import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  fileId,
  meterId,
  other,
  seller,
  t,
  withBenefitTenants,
} from "../../../test/helpers/benefits.ts";
import { countRows, insertMeter, uploadFile } from "../../../test/helpers/catalog.ts";
import { issueDiscordGuildToken } from "./discord.ts";

withBenefitTenants();

describe("benefit validation (raw HTTP): 422 in Polar's shape, nothing written", () => {
  const custom = { type: "custom", description: "Valid description", properties: { note: "n" } };
  const keys = (properties: Record<string, unknown>) => () => ({
    type: "license_keys",
    description: "Keys",
    properties,
  });
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
      keys({ expires: { ttl: 0, timeframe: "year" } }),
      ["body", "properties", "expires", "ttl"],
    ],
    [
      "license keys with a bad timeframe",
      keys({ expires: { ttl: 1, timeframe: "week" } }),
      ["body", "properties", "expires", "timeframe"],
    ],
    [
      "license keys with zero activations",
      keys({ activations: { limit: 0, enable_customer_admin: false } }),
      ["body", "properties", "activations", "limit"],
    ],
    [
      "license keys with a negative usage limit",
      keys({ limit_usage: -1 }),
      ["body", "properties", "limit_usage"],
    ],
    // Every grant would fail: its key's expiry would fall past the year 9999.
    ...(
      [
        [8000, "year"],
        [2_147_483_647, "day"],
      ] as const
    ).map(([ttl, timeframe]): (typeof cases)[number] => [
      `license keys expiring in ${ttl} ${timeframe}s`,
      keys({ expires: { ttl, timeframe } }),
      ["body", "properties", "expires", "ttl"],
    ]),
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
