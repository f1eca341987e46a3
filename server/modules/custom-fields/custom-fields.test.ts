import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, ["custom_fields:write"]);
  other = await createSeller(t.url, ["custom_fields:write"]);
});
afterAll(() => t?.stop());

describe("custom fields through Polar's client", () => {
  it("creates each type, gets, lists with pagination, updates and deletes", async () => {
    const polar = polarFor(t, seller.token);
    const text = await polar.customFields.create({
      type: "text",
      slug: "company",
      name: "Company",
      properties: { textarea: true, minLength: 2, maxLength: 80, formLabel: "Company" },
    });
    expect(text).toMatchObject({
      type: "text",
      slug: "company",
      organizationId: seller.organization.id,
      properties: { textarea: true, minLength: 2, maxLength: 80 },
    });
    const select = await polar.customFields.create({
      type: "select",
      slug: "size",
      name: "Size",
      properties: {
        options: [
          { value: "s", label: "Small" },
          { value: "l", label: "Large" },
        ],
      },
    });
    await polar.customFields.create({
      type: "number",
      slug: "seats",
      name: "Seats",
      properties: { ge: 1, le: 100 },
    });
    await polar.customFields.create({ type: "date", slug: "start", name: "Start", properties: {} });
    await polar.customFields.create({
      type: "checkbox",
      slug: "tos",
      name: "Terms",
      properties: { formHelpText: "Accept the terms" },
    });

    expect((await polar.customFields.get({ id: select.id })).properties).toEqual({
      options: [
        { value: "s", label: "Small" },
        { value: "l", label: "Large" },
      ],
    });

    const pages = [];
    for await (const page of await polar.customFields.list({ limit: 2, sorting: ["slug"] }))
      pages.push(page.result);
    expect(pages.map((p) => p.items.map((i) => i.slug))).toEqual([
      ["company", "seats"],
      ["size", "start"],
      ["tos"],
    ]);
    expect(pages[0]!.pagination).toEqual({ totalCount: 5, maxPage: 3 });
    // With no sorting the list is by slug, Polar's default, not in the order made.
    const byDefault = await polar.customFields.list({});
    expect(byDefault.result.items.map((i) => i.slug)).toEqual([
      "company",
      "seats",
      "size",
      "start",
      "tos",
    ]);

    const onlySelect = await polar.customFields.list({ typeFilter: "select", query: "s" });
    expect(onlySelect.result.items.map((i) => i.id)).toEqual([select.id]);

    const updated = await polar.customFields.update({
      id: text.id,
      customFieldUpdate: { type: "text", name: "Company name", slug: "company-name" },
    });
    expect(updated).toMatchObject({ name: "Company name", slug: "company-name" });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    await polar.customFields.delete({ id: text.id });
    await expect(polar.customFields.get({ id: text.id })).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it("another organization's field is ResourceNotFound; bad input is a 422", async () => {
    const mine = await polarFor(t, seller.token).customFields.create({
      type: "checkbox",
      slug: "mine",
      name: "Mine",
      properties: {},
    });
    const theirs = polarFor(t, other.token);
    await expect(theirs.customFields.get({ id: mine.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.customFields.update({
        id: mine.id,
        customFieldUpdate: { type: "checkbox", name: "x" },
      }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.customFields.delete({ id: mine.id })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      theirs.customFields.create({ type: "text", slug: "Bad Slug", name: "x", properties: {} }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
    // The same slug is fine in another organization.
    expect(
      (
        await theirs.customFields.create({
          type: "checkbox",
          slug: "mine",
          name: "Theirs",
          properties: {},
        })
      ).slug,
    ).toBe("mine");
  });
});

describe("custom field validation (raw HTTP): 4xx in Polar's shape, nothing written", () => {
  const post = (body: unknown) => api(t.url, "/v1/custom-fields/", { token: seller.token, body });
  const cases: [string, unknown, (string | number)[]][] = [
    [
      "slug with capitals",
      { type: "text", slug: "Nope", name: "n", properties: {} },
      ["body", "slug"],
    ],
    ["empty name", { type: "text", slug: "ok-1", name: "", properties: {} }, ["body", "name"]],
    ["unknown type", { type: "color", slug: "ok-2", name: "n", properties: {} }, ["body", "type"]],
    [
      "min_length above max_length",
      { type: "text", slug: "ok-3", name: "n", properties: { min_length: 5, max_length: 2 } },
      ["body", "properties", "min_length"],
    ],
    [
      "negative min_length",
      { type: "text", slug: "ok-4", name: "n", properties: { min_length: -1 } },
      ["body", "properties", "min_length"],
    ],
    [
      "ge above le",
      { type: "number", slug: "ok-5", name: "n", properties: { ge: 10, le: 1 } },
      ["body", "properties", "ge"],
    ],
    [
      "select without options",
      { type: "select", slug: "ok-6", name: "n", properties: { options: [] } },
      ["body", "properties", "options"],
    ],
    [
      "select with a blank label",
      {
        type: "select",
        slug: "ok-7",
        name: "n",
        properties: { options: [{ value: "a", label: "" }] },
      },
      ["body", "properties", "options", 0, "label"],
    ],
    [
      "select with repeated values",
      {
        type: "select",
        slug: "ok-8",
        name: "n",
        properties: {
          options: [
            { value: "a", label: "A" },
            { value: "a", label: "B" },
          ],
        },
      },
      ["body", "properties", "options"],
    ],
    [
      "empty form_label",
      { type: "checkbox", slug: "ok-9", name: "n", properties: { form_label: "" } },
      ["body", "properties", "form_label"],
    ],
    [
      "metadata key too long",
      {
        type: "checkbox",
        slug: "ok-10",
        name: "n",
        properties: {},
        metadata: { ["k".repeat(41)]: "v" },
      },
      ["body", "metadata"],
    ],
  ];
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = await countRows(t, "custom_fields");
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
      expect(await countRows(t, "custom_fields")).toBe(before);
    });
  }

  it("a slug already used in the organization → 422 on body.slug, on create and on update", async () => {
    expect(
      (await post({ type: "checkbox", slug: "taken", name: "A", properties: {} })).status,
    ).toBe(201);
    const before = await countRows(t, "custom_fields");
    const dup = await post({ type: "text", slug: "taken", name: "B", properties: {} });
    expect(dup.status).toBe(422);
    expect(dup.body.detail[0].loc).toEqual(["body", "slug"]);
    expect(await countRows(t, "custom_fields")).toBe(before);
    const second = await post({ type: "checkbox", slug: "second", name: "S", properties: {} });
    const rename = await api(t.url, `/v1/custom-fields/${second.body.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { type: "checkbox", slug: "taken" },
    });
    expect(rename.status).toBe(422);
    expect(
      (await api(t.url, `/v1/custom-fields/${second.body.id}`, { token: seller.token })).body.slug,
    ).toBe("second");
  });

  it("changing the type on update → 422 on body.type, field unchanged", async () => {
    const field = await post({ type: "checkbox", slug: "typed", name: "T", properties: {} });
    const res = await api(t.url, `/v1/custom-fields/${field.body.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { type: "text", name: "Other" },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "type"]);
    expect(
      (await api(t.url, `/v1/custom-fields/${field.body.id}`, { token: seller.token })).body,
    ).toMatchObject({ type: "checkbox", name: "T" });
  });

  it("a malformed id is a 422, a read-only token cannot write (403), no token is a 401", async () => {
    expect((await api(t.url, "/v1/custom-fields/not-a-uuid", { token: seller.token })).status).toBe(
      422,
    );
    const reader = await createSeller(t.url, ["custom_fields:read"]);
    const res = await api(t.url, "/v1/custom-fields/", {
      token: reader.token,
      body: { type: "checkbox", slug: "x", name: "x", properties: {} },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("NotPermitted");
    expect((await api(t.url, "/v1/custom-fields/")).status).toBe(401);
  });
});
