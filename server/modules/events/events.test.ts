import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, [
    "customers:write",
    "events:write",
    "meters:write",
    "members:write",
  ]);
  other = await createSeller(t.url, ["customers:write", "events:write", "members:write"]);
});
afterAll(() => t.stop());

const ingest = (token: string, events: unknown[]) =>
  api(t.url, "/v1/events/ingest", { token, body: { events } });

describe("events through @polar-sh/sdk", () => {
  it("ingests by customer id and external customer id, deduplicates by external_id, lists, gets and names", async () => {
    const polar = polarClient(t, seller.token);
    const bob = await polar.customers.create({ email: "bob@example.com", externalId: "usr_bob" });
    const first = await polar.events.ingest({
      events: [
        {
          name: "api_call",
          customerId: bob.id,
          externalId: "e1",
          timestamp: new Date("2026-01-01T10:00:00Z"),
          metadata: { route: "/a", tokens: 10 },
        },
        {
          name: "api_call",
          externalCustomerId: "usr_bob",
          externalId: "e2",
          timestamp: new Date("2026-01-01T11:00:00Z"),
          metadata: { route: "/b", tokens: 5 },
        },
        {
          name: "login",
          externalCustomerId: "usr_later",
          externalId: "e3",
          timestamp: new Date("2026-01-02T09:00:00Z"),
        },
      ],
    });
    expect(first).toEqual({ inserted: 3, duplicates: 0 });
    const again = await polar.events.ingest({
      events: [
        { name: "api_call", customerId: bob.id, externalId: "e1" },
        { name: "api_call", customerId: bob.id, externalId: "e4" },
      ],
    });
    expect(again).toEqual({ inserted: 1, duplicates: 1 });

    const list = await polar.events.list({ customerId: bob.id, limit: 2 });
    if (!("items" in list) || !("totalCount" in list.pagination))
      throw new Error("expected a page-based list");
    expect(list.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    expect(list.items[0]!.name).toBe("api_call");
    const byExternal = await polar.events.list({
      externalCustomerId: "usr_bob",
      sorting: ["timestamp"],
    });
    expect(
      byExternal.items.map((e) => (e.source === "user" ? e.metadata.route : null)).slice(0, 2),
    ).toEqual(["/a", "/b"]);
    const tokens = await polar.events.list({
      filter: JSON.stringify({
        conjunction: "and",
        clauses: [{ property: "tokens", operator: "gte", value: 10 }],
      }),
    });
    expect(tokens.items.length).toBe(1);
    const byMeta = await polar.events.list({ metadata: { route: "/b" } });
    expect(byMeta.items.length).toBe(1);
    const inRange = await polar.events.list({
      startTimestamp: new Date("2026-01-01T10:30:00Z"),
      endTimestamp: new Date("2026-01-01T23:00:00Z"),
    });
    expect(inRange.items.length).toBe(1);

    const one = list.items[0]!;
    const got = await polar.events.get({ id: one.id });
    expect(got).toMatchObject({
      id: one.id,
      source: "user",
      customerId: bob.id,
      externalCustomerId: "usr_bob",
    });
    expect("customer" in got && got.customer?.email).toBe("bob@example.com");

    // An event for an external customer that does not exist yet is linked when the customer appears.
    const later = await polar.customers.create({
      email: "later@example.com",
      externalId: "usr_later",
    });
    const linked = await polar.events.list({ customerId: later.id });
    expect(linked.items.map((e) => e.name)).toEqual(["login"]);
    const raw = await api(t.url, `/v1/customers/${later.id}`, { token: seller.token });
    expect(raw.body.first_user_event_at).toBe("2026-01-02T09:00:00.000Z");

    const names = [];
    for await (const page of await polar.events.listNames({ sorting: ["name"] }))
      names.push(...page.result.items);
    expect(names.map((n) => [n.name, n.occurrences])).toEqual([
      ["api_call", 3],
      ["login", 1],
    ]);
    expect(names[0]).toMatchObject({ source: "user", firstSeen: new Date("2026-01-01T10:00:00Z") });
  });

  it("another organization's event is ResourceNotFound; an invalid batch is a 422", async () => {
    const polar = polarClient(t, seller.token);
    await polar.events.ingest({
      events: [{ name: "x", externalCustomerId: "someone", externalId: "mine-1" }],
    });
    const mine = await polar.events.list({ name: "x" });
    await expect(
      polarClient(t, other.token).events.get({ id: mine.items[0]!.id }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await polarClient(t, other.token).events.list({})).items).toEqual([]);
    await expect(
      polar.events.ingest({
        events: [{ name: "x", customerId: "00000000-0000-4000-8000-000000000000" }],
      }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
  });
});

describe("ingest validation: all or nothing, the failing index in loc", () => {
  const ok = { name: "ok", external_customer_id: "c1" };
  const cases: [string, unknown[], (string | number)[]][] = [
    ["no customer", [ok, ok, ok, { name: "x" }], ["body", "events", 3, "customer_id"]],
    [
      "both customer ids",
      [{ ...ok, customer_id: "00000000-0000-4000-8000-000000000000" }],
      ["body", "events", 0, "external_customer_id"],
    ],
    [
      "unknown customer id",
      [ok, { name: "x", customer_id: "00000000-0000-4000-8000-000000000000" }],
      ["body", "events", 1, "customer_id"],
    ],
    [
      "malformed customer id",
      [{ name: "x", customer_id: "nope" }],
      ["body", "events", 0, "customer_id"],
    ],
    ["missing name", [ok, { external_customer_id: "c1" }], ["body", "events", 1, "name"]],
    [
      "a number no meter could sum",
      [ok, { ...ok, metadata: { tokens: 1e308 } }],
      ["body", "events", 1, "metadata", "tokens"],
    ],
    [
      "a cost no meter could sum",
      [{ ...ok, metadata: { _cost: { amount: -1e16, currency: "usd" } } }],
      ["body", "events", 0, "metadata", "_cost", "amount"],
    ],
    ["name over 128 characters", [{ ...ok, name: "n".repeat(129) }], ["body", "events", 0, "name"]],
    [
      "timestamp without offset",
      [{ ...ok, timestamp: "2026-01-01T00:00:00" }],
      ["body", "events", 0, "timestamp"],
    ],
    [
      "timestamp in the year 0",
      [{ ...ok, timestamp: "0000-01-01T00:00:00Z" }],
      ["body", "events", 0, "timestamp"],
    ],
    [
      "timestamp in the year 50, which would read back as 1950",
      [{ ...ok, timestamp: "0050-06-15T12:00:00+05:00" }],
      ["body", "events", 0, "timestamp"],
    ],
    [
      "metadata with 51 keys",
      [{ ...ok, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
      ["body", "events", 0, "metadata"],
    ],
    [
      "metadata key over 40 characters",
      [ok, { ...ok, metadata: { ["k".repeat(41)]: 1 } }],
      ["body", "events", 1, "metadata", "k".repeat(41)],
    ],
    [
      "metadata string over 500 characters",
      [{ ...ok, metadata: { s: "x".repeat(501) } }],
      ["body", "events", 0, "metadata", "s"],
    ],
    [
      "metadata nested object",
      [{ ...ok, metadata: { s: { a: 1 } } }],
      ["body", "events", 0, "metadata", "s"],
    ],
    ["unknown parent", [{ ...ok, parent_id: "no-such-event" }], ["body", "events", 0, "parent_id"]],
    ["more than 1000 events", Array.from({ length: 1001 }, () => ok), ["body", "events"]],
  ];
  it.each(cases)("%s", async (_label, events, loc) => {
    const before = await countRows(t, "events");
    const res = await ingest(seller.token, events);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("RequestValidationError");
    expect(res.body.detail[0].loc).toEqual(loc);
    expect(await countRows(t, "events")).toBe(before);
  });

  it("a batch limit error says how to fix it", async () => {
    const res = await ingest(
      seller.token,
      Array.from({ length: 1001 }, () => ok),
    );
    expect(res.body.detail[0].msg).toMatch(/at most 1000 events/);
  });

  it("another organization's customer id is unknown here", async () => {
    const theirs = await api(t.url, "/v1/customers/", {
      token: other.token,
      body: { email: "theirs@example.com" },
    });
    const res = await ingest(seller.token, [{ name: "x", customer_id: theirs.body.id }]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "events", 0, "customer_id"]);
  });

  it("member_id names a member of the organization, on the event's customer's team", async () => {
    const customer = async (who: Seller, email: string) =>
      (await api(t.url, "/v1/customers/", { token: who.token, body: { email } })).body.id as string;
    const member = async (who: Seller, customerId: string, email: string) => {
      const res = await api(t.url, `/v1/customers/${customerId}/members`, {
        token: who.token,
        body: { email },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const acme = await customer(seller, "acme@example.com");
    const globex = await customer(seller, "globex@example.com");
    const dev = await member(seller, acme, "dev@acme.example");
    const theirs = await member(other, await customer(other, "x@example.com"), "y@example.com");
    const list = async () =>
      (await api(t.url, "/v1/events/?name=seat.call", { token: seller.token })).body.items;
    const before = await list();
    const refused = await ingest(seller.token, [
      { name: "seat.call", customer_id: acme, member_id: dev },
      { name: "seat.call", customer_id: globex, member_id: dev },
      { name: "seat.call", customer_id: acme, member_id: theirs },
      { name: "seat.call", external_customer_id: "c1", member_id: crypto.randomUUID() },
    ]);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "events", 1, "member_id"],
        msg: "The member is not on this customer's team.",
      }),
      expect.objectContaining({
        loc: ["body", "events", 2, "member_id"],
        msg: "Member not found.",
      }),
      expect.objectContaining({
        loc: ["body", "events", 3, "member_id"],
        msg: "Member not found.",
      }),
    ]);
    expect(await list()).toEqual(before);
    const accepted = await ingest(seller.token, [
      { name: "seat.call", customer_id: acme, member_id: dev },
    ]);
    expect(accepted.body).toEqual({ inserted: 1, duplicates: 0 });
    expect((await list())[0]).toMatchObject({ customer_id: acme, member_id: dev });
  });

  it("parents resolve by event id or external id, in the batch or stored; children are counted", async () => {
    const res = await ingest(seller.token, [
      { ...ok, name: "parent", external_id: "p-1" },
      { ...ok, name: "child", parent_id: "p-1" },
    ]);
    expect(res.body).toEqual({ inserted: 2, duplicates: 0 });
    const parent = (await api(t.url, "/v1/events/?name=parent", { token: seller.token })).body
      .items[0];
    await ingest(seller.token, [{ ...ok, name: "child", parent_id: parent.id }]);
    expect(
      (await api(t.url, `/v1/events/${parent.id}`, { token: seller.token })).body.child_count,
    ).toBe(2);
    const children = await api(t.url, `/v1/events/?parent_id=${parent.id}`, {
      token: seller.token,
    });
    expect(children.body.items.length).toBe(2);
  });

  it("values with quotes, backslashes, braces and NULL survive the batch insert", async () => {
    const tricky = "a\"b\\c{d,e}NULL'";
    const res = await ingest(seller.token, [
      {
        name: tricky,
        external_customer_id: "NULL",
        external_id: tricky,
        metadata: { [tricky.slice(0, 10)]: tricky },
      },
    ]);
    expect(res.body).toEqual({ inserted: 1, duplicates: 0 });
    const got = await api(t.url, `/v1/events/?external_customer_id=NULL`, { token: seller.token });
    expect(got.body.items[0]).toMatchObject({
      name: tricky,
      external_customer_id: "NULL",
      metadata: { [tricky.slice(0, 10)]: tricky },
    });
  });

  it("list filters are validated", async () => {
    for (const [query, loc] of [
      ["filter=notjson", ["query", "filter"]],
      [
        `filter=${encodeURIComponent(JSON.stringify({ conjunction: "xor", clauses: [] }))}`,
        ["query", "filter", "conjunction"],
      ],
      ["meter_id=00000000-0000-4000-8000-000000000000", ["query", "meter_id"]],
      ["start_timestamp=yesterday", ["query", "start_timestamp"]],
      ["sorting=name", ["query", "sorting"]],
      ["metadata[a][b]=1", ["query", "metadata[a][b]"]],
    ] as const) {
      const res = await api(t.url, `/v1/events/?${query}`, { token: seller.token });
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
  });
});
