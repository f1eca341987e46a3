// Meter validation: a bad meter, filter, quantities query or update is a 422 in Polar's shape and
// writes nothing.
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { apiCalls, seller, t, withMeterEvents } from "../../../test/helpers/meters.ts";
import { countRows } from "../../../test/helpers/polar.ts";

withMeterEvents();

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
      "timestamp clause of a bare number",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "12345" }],
        },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "timestamp clause of February 30",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "2026-02-30T00:00:00Z" }],
        },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "timestamp clause of the year 0",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "0000-01-01T00:00:00Z" }],
        },
      },
      ["body", "filter", "clauses", 0],
    ],
    [
      "timestamp clause of the year 50",
      {
        ...base,
        filter: {
          conjunction: "and",
          clauses: [{ property: "timestamp", operator: "gt", value: "0050-06-15T12:00:00+05:00" }],
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
      // An offset, not a zone: PostgreSQL would read it as five hours west of UTC.
      [`${ok}&interval=day&timezone=%2B05:00`, ["query", "timezone"]],
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
