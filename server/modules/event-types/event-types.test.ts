import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
let ada: string;

beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["customers:write", "events:write"]);
  other = await createSeller(t.url, ["customers:write", "events:write"]);
  const polar = polarClient(t, seller.token);
  ada = (await polar.customers.create({ email: "ada@example.com" })).id;
  const bob = (await polar.customers.create({ email: "bob@example.com", externalId: "u_bob" })).id;
  const at = (d: string) => new Date(d);
  await polar.events.ingest({
    events: [
      { name: "api_call", timestamp: at("2026-03-01T10:00:00Z"), customerId: ada },
      { name: "api_call", timestamp: at("2026-03-05T10:00:00Z"), customerId: ada },
      { name: "api_call", timestamp: at("2026-03-03T10:00:00Z"), customerId: bob },
      { name: "upload", timestamp: at("2026-03-02T10:00:00Z"), customerId: bob },
    ],
  });
  await polarClient(t, other.token).events.ingest({
    events: [
      {
        name: "secret_thing",
        timestamp: at("2026-03-01T10:00:00Z"),
        customerId: (await polarClient(t, other.token).customers.create({ email: "x@example.com" }))
          .id,
      },
    ],
  });
}, 60_000);
afterAll(() => t.stop());

describe("event types through @polar-sh/sdk", () => {
  it("lists the names seen with counts and first/last seen, and updates a label", async () => {
    const polar = polarClient(t, seller.token);
    const page = await polar.eventTypes.list({});
    expect(
      page.result.items.map((e) => [
        e.name,
        e.label,
        e.source,
        e.occurrences,
        e.firstSeen,
        e.lastSeen,
      ]),
    ).toEqual([
      ["api_call", "api_call", "user", 3, at("2026-03-01T10:00:00Z"), at("2026-03-05T10:00:00Z")],
      ["upload", "upload", "user", 1, at("2026-03-02T10:00:00Z"), at("2026-03-02T10:00:00Z")],
    ]);
    const apiCall = page.result.items[0]!;
    expect(apiCall.organizationId).toBe(seller.organization.id);
    const updated = await polar.eventTypes.update({
      id: apiCall.id!,
      eventTypeUpdate: { label: "API call", labelPropertySelector: "metadata.route" },
    });
    expect(updated).toMatchObject({
      id: apiCall.id,
      name: "api_call",
      label: "API call",
      labelPropertySelector: "metadata.route",
    });
    expect(updated.modifiedAt).not.toBeNull();
    // Listing again keeps the id and shows the label; the query matches labels too.
    const again = await polar.eventTypes.list({ query: "API c" });
    expect(again.result.items.map((e) => [e.id, e.label])).toEqual([[apiCall.id, "API call"]]);
  });

  it("filters by customer, external customer id, root events and sorts", async () => {
    const polar = polarClient(t, seller.token);
    const forAda = await polar.eventTypes.list({ customerId: ada });
    expect(forAda.result.items.map((e) => [e.name, e.occurrences])).toEqual([["api_call", 2]]);
    const forBob = await polar.eventTypes.list({ externalCustomerId: "u_bob", sorting: ["name"] });
    expect(forBob.result.items.map((e) => e.name)).toEqual(["api_call", "upload"]);
    const byCount = await polar.eventTypes.list({ sorting: ["occurrences"] });
    expect(byCount.result.items.map((e) => e.name)).toEqual(["upload", "api_call"]);
    await t.server.database.rows(sql`
      update events set parent_id = gen_random_uuid()
      where name = 'upload' and organization_id = ${seller.organization.id}`);
    const roots = await polar.eventTypes.list({ rootEvents: true });
    expect(roots.result.items.map((e) => e.name)).toEqual(["api_call"]);
  });
});

describe("event types over HTTP", () => {
  it("keeps organizations apart", async () => {
    const mine = await api(t.url, "/v1/event-types/", { token: other.token });
    expect(mine.body.items.map((e: { name: string }) => e.name)).toEqual(["secret_thing"]);
    const theirs = await api(t.url, "/v1/event-types/", { token: seller.token });
    const id = theirs.body.items[0].id;
    const patch = await api(t.url, `/v1/event-types/${id}`, {
      method: "PATCH",
      token: other.token,
      body: { label: "Mine now" },
    });
    expect(patch.status).toBe(404);
    expect(patch.body.error).toBe("ResourceNotFound");
  });

  it("rejects bad input with 422 and changes nothing", async () => {
    const list = await api(t.url, "/v1/event-types/?sorting=name", { token: seller.token });
    const id = list.body.items[0].id;
    for (const body of [{}, { label: "" }, { label: "x".repeat(129) }, { label: "ok", extra: 1 }]) {
      const res = await api(t.url, `/v1/event-types/${id}`, {
        method: "PATCH",
        token: seller.token,
        body,
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
    }
    expect(
      (
        await api(t.url, "/v1/event-types/nope", {
          method: "PATCH",
          token: seller.token,
          body: { label: "a" },
        })
      ).status,
    ).toBe(422);
    expect(
      (await api(t.url, "/v1/event-types/?source=robot", { token: seller.token })).status,
    ).toBe(422);
    const after = await api(t.url, "/v1/event-types/?sorting=name", { token: seller.token });
    expect(after.body.items.map((e: { label: string }) => e.label)).toEqual(
      list.body.items.map((e: { label: string }) => e.label),
    );
  });
});

function at(d: string) {
  return new Date(d);
}
