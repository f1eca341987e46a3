import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
let polar: Polar;
let alice: string;
beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["customers:write", "events:write", "meters:write"]);
  other = await createSeller(t.url, ["meters:write"]);
  polar = polarClient(t, seller.token);
  alice = (await polar.customers.create({ email: "alice@example.com", externalId: "usr_alice" }))
    .id;
  const ev = (
    name: string,
    at: string,
    metadata: Record<string, string | number | boolean>,
    who: { customerId: string } | { externalCustomerId: string } = { customerId: alice },
  ) => ({
    name,
    timestamp: new Date(at),
    metadata,
    ...who,
  });
  await polar.events.ingest({
    events: [
      ev("api_call", "2026-03-01T08:00:00Z", {
        tokens: 10,
        model: "gpt-small",
        region: "eu",
        cached: false,
      }),
      ev("api_call", "2026-03-01T23:30:00Z", {
        tokens: 20,
        model: "gpt-large",
        region: "us",
        cached: true,
      }),
      ev("api_call", "2026-03-02T12:00:00Z", {
        tokens: 5,
        model: "gpt-small",
        region: "eu",
        cached: false,
      }),
      ev(
        "api_call",
        "2026-03-03T12:00:00Z",
        { tokens: 7, model: "gpt-small", region: "eu" },
        { externalCustomerId: "usr_bob" },
      ),
      ev("login", "2026-03-01T09:00:00Z", { tokens: 1000 }),
      ev("api_call", "2026-03-01T10:00:00Z", { tokens: "many" }),
    ],
  });
});
afterAll(() => t.stop());

const apiCalls = {
  conjunction: "and" as const,
  clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
};
const march = {
  startTimestamp: new Date("2026-03-01T00:00:00Z"),
  endTimestamp: new Date("2026-03-03T23:59:59Z"),
  interval: "day" as const,
};

describe("meters through @polar-sh/sdk", () => {
  it("creates, gets, lists with pagination and updates", async () => {
    const created = await polar.meters.create({
      name: "Tokens",
      filter: apiCalls,
      aggregation: { func: "sum", property: "tokens" },
      metadata: { team: "ml" },
    });
    expect(created).toMatchObject({
      name: "Tokens",
      unit: "scalar",
      organizationId: seller.organization.id,
      aggregation: { func: "sum", property: "tokens" },
    });
    expect((await polar.meters.get({ id: created.id })).filter).toEqual(apiCalls);
    for (const name of ["Calls A", "Calls B", "Calls C"])
      await polar.meters.create({ name, filter: apiCalls, aggregation: { func: "count" } });
    const pages = [];
    for await (const page of await polar.meters.list({ limit: 2 }))
      pages.push(...page.result.items.map((m) => m.name));
    expect(pages).toEqual(["Calls A", "Calls B", "Calls C", "Tokens"]);
    expect(
      (await polar.meters.list({ metadata: { team: "ml" } })).result.items.map((m) => m.id),
    ).toEqual([created.id]);
    const archived = await polar.meters.update({
      id: created.id,
      meterUpdate: { name: "Tokens used", isArchived: true },
    });
    expect(archived.name).toBe("Tokens used");
    expect(archived.archivedAt).toBeInstanceOf(Date);
    expect((await polar.meters.list({ isArchived: true })).result.items.map((m) => m.id)).toEqual([
      created.id,
    ]);
  });

  it("computes quantities in SQL for each aggregation, per customer, with empty buckets", async () => {
    const cases: [Record<string, string>, number[], number][] = [
      [{ func: "count" }, [3, 1, 1], 5],
      [{ func: "sum", property: "tokens" }, [30, 5, 7], 42],
      [{ func: "max", property: "metadata.tokens" }, [20, 5, 7], 20],
      [{ func: "min", property: "tokens" }, [10, 5, 7], 5],
      [{ func: "avg", property: "tokens" }, [15, 5, 7], 10.5],
      [{ func: "unique", property: "model" }, [2, 1, 1], 2],
    ];
    for (const [aggregation, daily, total] of cases) {
      const meter = await polar.meters.create({
        name: `agg ${aggregation.func}`,
        filter: apiCalls,
        aggregation: aggregation as never,
      });
      const q = await polar.meters.quantities({ id: meter.id, ...march });
      expect(
        q.quantities.map((x) => x.quantity),
        aggregation.func,
      ).toEqual(daily);
      expect(q.quantities.map((x) => x.timestamp.toISOString())).toEqual([
        "2026-03-01T00:00:00.000Z",
        "2026-03-02T00:00:00.000Z",
        "2026-03-03T00:00:00.000Z",
      ]);
      expect(q.total).toBe(total);
    }
    const sum = await polar.meters.create({
      name: "sum",
      filter: apiCalls,
      aggregation: { func: "sum", property: "tokens" },
    });
    expect((await polar.meters.quantities({ id: sum.id, ...march, customerId: alice })).total).toBe(
      35,
    );
    expect(
      (await polar.meters.quantities({ id: sum.id, ...march, externalCustomerId: "usr_bob" }))
        .total,
    ).toBe(7);
    expect(
      (await polar.meters.quantities({ id: sum.id, ...march, metadata: { region: "us" } })).total,
    ).toBe(20);
    const hourly = await polar.meters.quantities({
      id: sum.id,
      startTimestamp: new Date("2026-03-01T07:00:00Z"),
      endTimestamp: new Date("2026-03-01T09:59:59Z"),
      interval: "hour",
    });
    expect(hourly.quantities.map((x) => x.quantity)).toEqual([0, 10, 0]);
    // In Paris (UTC+1) the 23:30 UTC event falls on March 2nd.
    const paris = await polar.meters.quantities({ id: sum.id, ...march, timezone: "Europe/Paris" });
    expect(paris.quantities[0]!.timestamp.toISOString()).toBe("2026-02-28T23:00:00.000Z");
    // The period ends at 00:59 on March 4th in Paris, so that day is a (empty) bucket too.
    expect(paris.quantities.map((x) => x.quantity)).toEqual([10, 25, 7, 0]);
    const empty = await polar.meters.quantities({
      id: sum.id,
      startTimestamp: new Date("2025-01-01T00:00:00Z"),
      endTimestamp: new Date("2025-12-31T00:00:00Z"),
      interval: "month",
    });
    expect(empty.quantities.length).toBe(12);
    expect(empty.total).toBe(0);
  });

  it("filters nest with and/or over name, timestamp and metadata, with every operator", async () => {
    const filters: [unknown, number][] = [
      [
        {
          conjunction: "and",
          clauses: [
            { property: "name", operator: "eq", value: "api_call" },
            {
              conjunction: "or",
              clauses: [
                { property: "region", operator: "eq", value: "us" },
                { property: "tokens", operator: "lt", value: 6 },
              ],
            },
          ],
        },
        2,
      ],
      [
        { conjunction: "and", clauses: [{ property: "model", operator: "like", value: "large" }] },
        1,
      ],
      [
        {
          conjunction: "and",
          clauses: [
            { property: "name", operator: "eq", value: "api_call" },
            { property: "model", operator: "not_like", value: "large" },
          ],
        },
        3,
      ],
      [
        {
          conjunction: "and",
          clauses: [{ property: "metadata.cached", operator: "eq", value: true }],
        },
        1,
      ],
      [{ conjunction: "and", clauses: [{ property: "cached", operator: "ne", value: true }] }, 2],
      [
        {
          conjunction: "and",
          clauses: [
            { property: "tokens", operator: "gte", value: 10 },
            { property: "tokens", operator: "lte", value: 20 },
          ],
        },
        2,
      ],
      [
        {
          conjunction: "and",
          clauses: [
            { property: "tokens", operator: "gt", value: 10 },
            { property: "name", operator: "ne", value: "login" },
          ],
        },
        1,
      ],
      [
        {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "2026-03-02T00:00:00Z" }],
        },
        2,
      ],
      [{ conjunction: "or", clauses: [] }, 6],
      [
        {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: "x'; drop table events; --" }],
        },
        0,
      ],
    ];
    for (const [filter, count] of filters) {
      const meter = await polar.meters.create({
        name: "filtered",
        filter: filter as never,
        aggregation: { func: "count" },
      });
      expect(
        (await polar.meters.quantities({ id: meter.id, ...march })).total,
        JSON.stringify(filter),
      ).toBe(count);
    }
    expect(await countRows(t, "events")).toBe(6);
  });

  it("a changed definition counts from the next read, whichever server instance changed it", async () => {
    const meter = await polar.meters.create({
      name: "changing",
      filter: apiCalls,
      aggregation: { func: "count" },
    });
    expect((await polar.meters.quantities({ id: meter.id, ...march })).total).toBe(5);
    await polar.meters.update({
      id: meter.id,
      meterUpdate: { aggregation: { func: "sum", property: "tokens" } },
    });
    expect((await polar.meters.quantities({ id: meter.id, ...march })).total).toBe(42);
    // As another instance would: the row changes underneath this server's process.
    const large = {
      conjunction: "and",
      clauses: [{ property: "model", operator: "like", value: "large" }],
    };
    await t.server.database.rows(
      sql`update meters set filter = ${JSON.stringify(large)}::jsonb where id = ${meter.id}`,
    );
    expect((await polar.meters.quantities({ id: meter.id, ...march })).total).toBe(20);
    await t.server.database.rows(sql`delete from meters where id = ${meter.id}`);
    await expect(polar.meters.quantities({ id: meter.id, ...march })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
  });

  it("another organization's meter is ResourceNotFound; bad input is a 422", async () => {
    const meter = await polar.meters.create({
      name: "mine",
      filter: apiCalls,
      aggregation: { func: "count" },
    });
    expect((await polar.meters.quantities({ id: meter.id, ...march })).total).toBe(5);
    const theirs = polarClient(t, other.token);
    await expect(theirs.meters.get({ id: meter.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.meters.quantities({ id: meter.id, ...march })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      theirs.meters.update({ id: meter.id, meterUpdate: { name: "hijack" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      polar.meters.create({ name: "ab", filter: apiCalls, aggregation: { func: "count" } }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
  });
});

describe("meter validation: 422 in Polar's shape, nothing written", () => {
  const base = { name: "Valid", filter: apiCalls, aggregation: { func: "count" } };
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ["short name", { ...base, name: "ab" }, ["body", "name"]],
    [
      "unknown operator",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "contains", value: "x" }],
        },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "unknown conjunction",
      { ...base, filter: { conjunction: "xor", clauses: [] } },
      ["body", "filter", "conjunction"],
    ],
    [
      "timestamp clause without a date",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "soon" }],
        },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "boolean with gt",
      {
        ...base,
        filter: { conjunction: "and", clauses: [{ property: "x", operator: "gt", value: true }] },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "property with spaces",
      {
        ...base,
        filter: { conjunction: "and", clauses: [{ property: "a b", operator: "eq", value: 1 }] },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "unknown aggregation",
      { ...base, aggregation: { func: "median", property: "x" } },
      ["body", "aggregation", "func"],
    ],
    [
      "sum without property",
      { ...base, aggregation: { func: "sum" } },
      ["body", "aggregation", "property"],
    ],
    ["custom unit without label", { ...base, unit: "custom" }, ["body", "custom_label"]],
    ["zero multiplier", { ...base, custom_multiplier: 0 }, ["body", "custom_multiplier"]],
    [
      "metadata with 51 keys",
      { ...base, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      ["body", "metadata"],
    ],
  ];
  it.each(cases)("%s", async (_label, body, loc) => {
    const before = await countRows(t, "meters");
    const res = await api(t.url, "/v1/meters/", { token: seller.token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("RequestValidationError");
    expect(res.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
    expect(await countRows(t, "meters")).toBe(before);
  });

  it("filters nested too deep are refused", async () => {
    let filter: Record<string, unknown> = { conjunction: "and", clauses: [] };
    for (let i = 0; i < 6; i++) filter = { conjunction: "or", clauses: [filter] };
    const res = await api(t.url, "/v1/meters/", { token: seller.token, body: { ...base, filter } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/nest at most/);
  });

  it("quantities parameters are validated", async () => {
    const meter = await api(t.url, "/v1/meters/", { token: seller.token, body: base });
    const ok = "start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-02T00:00:00Z";
    for (const [query, loc] of [
      ["end_timestamp=2026-03-02T00:00:00Z&interval=day", ["query", "start_timestamp"]],
      [`${ok}&interval=minute`, ["query", "interval"]],
      [`${ok}&interval=day&timezone=Mars/Olympus`, ["query", "timezone"]],
      [
        "start_timestamp=2026-03-02T00:00:00Z&end_timestamp=2026-03-01T00:00:00Z&interval=day",
        ["query", "end_timestamp"],
      ],
      [
        "start_timestamp=2000-01-01T00:00:00Z&end_timestamp=2026-03-01T00:00:00Z&interval=hour",
        ["query", "interval"],
      ],
      [`${ok}&interval=day&customer_id=nope`, ["query", "customer_id"]],
      [
        `${ok}&interval=day&customer_aggregation_function=sum`,
        ["query", "customer_aggregation_function"],
      ],
    ] as const) {
      const res = await api(t.url, `/v1/meters/${meter.body.id}/quantities?${query}`, {
        token: seller.token,
      });
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
  });

  it("an update is validated and leaves the meter unchanged when refused", async () => {
    const meter = await api(t.url, "/v1/meters/", { token: seller.token, body: base });
    for (const body of [
      { name: "x" },
      { unit: "custom" },
      { aggregation: { func: "avg" } },
      { filter: { conjunction: "and" } },
    ]) {
      const res = await api(t.url, `/v1/meters/${meter.body.id}`, {
        method: "PATCH",
        token: seller.token,
        body,
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await api(t.url, `/v1/meters/${meter.body.id}`, { token: seller.token })).body).toEqual(
      meter.body,
    );
  });
});
