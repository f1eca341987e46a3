// Meters through @polar-sh/sdk: created, read, listed and updated; quantities computed in SQL for
// every aggregation, customer, interval and time zone; nested filters with every operator; a
// changed definition read at once; another organization's meter is ResourceNotFound. Validation
// is in meters-validation.test.ts.
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  alice,
  apiCalls,
  march,
  other,
  polar,
  seller,
  t,
  withMeterEvents,
} from "../../../test/helpers/meters.ts";
import { countRows, polarClient } from "../../../test/helpers/polar.ts";

withMeterEvents();

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
