// Tenancy by type at run time: metrics computed under one organization's scope never count another
// organization's rows, and its limits come from the scope's own organizations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["events:write"]);
  b = await createSeller(t.url, ["events:write"]);
  const res = await fetch(`${t.url}/v1/events/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      events: [
        {
          name: "llm.call",
          external_customer_id: "usr_1",
          timestamp: "2026-05-02T10:00:00Z",
          metadata: { _cost: { amount: 123, currency: "usd" } },
        },
      ],
    }),
  });
  expect(res.status).toBe(200);
});
afterAll(() => t?.stop());

describe("OrgScope on metrics reads", () => {
  it("counts A's rows under A's scope only", async () => {
    const db = t.server.database.db;
    const costs = async (scope: ReturnType<typeof scopeOfSeller>) => {
      const rows = await repo.periodRows(
        db,
        { organizationIds: scope, productIds: null, customerIds: null, billingTypes: null },
        { start: "2026-05-01", end: "2026-05-03", interval: "day", timezone: "UTC" },
      );
      return rows.reduce((sum, r) => sum + Number(r.costs), 0);
    };
    expect(await costs(scopeOfSeller(a))).toBe(123);
    expect(await costs(scopeOfSeller(b))).toBe(0);

    expect(await repo.earliestOrganization(db, scopeOfSeller(a))).toBeInstanceOf(Date);
    expect(await repo.earliestOrganization(db, scopeOfResource())).toBeNull();
  });
});
