// Tenancy by type at run time: a webhooks read under one organization's scope never returns another
// organization's endpoint, delivery or endpoint event, nor its endpoints to the dispatcher.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { enabledEndpoints } from "./delivery-repository.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let endpointId: string;
let eventId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["webhooks:write"]);
  b = await createSeller(t.url, ["webhooks:write"]);
  const res = await fetch(`${t.url}/v1/webhooks/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "http://localhost:9/hook", format: "raw", events: ["order.paid"] }),
  });
  expect(res.status).toBe(201);
  ({ id: endpointId } = (await res.json()) as { id: string });
  // The worker writes these rows; made directly, the reads are what is under test.
  const [event] = await t.testDb.database.rows<{ id: string }>(
    sql`insert into webhook_endpoint_events (organization_id, endpoint_id, seq, type, payload)
        values (${a.organization.id}, ${endpointId}, 1, 'order.paid', '{}') returning id`,
  );
  eventId = event!.id;
  await t.testDb.database.rows(
    sql`insert into webhook_deliveries
          (organization_id, endpoint_id, webhook_event_id, attempt, succeeded, duration_ms)
        values (${a.organization.id}, ${endpointId}, ${eventId}, 1, false, 5)`,
  );
});
afterAll(() => t?.stop());

describe("OrgScope on webhooks reads", () => {
  it("returns A's endpoints, deliveries and events under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findEndpoint(db, scopeA, endpointId))?.id).toBe(endpointId);
    expect(await repo.findEndpoint(db, scopeB, endpointId)).toBeNull();
    expect((await repo.listEndpoints(db, scopeA, 10, 0)).rows.map((r) => r.id)).toEqual([
      endpointId,
    ]);
    expect(await repo.listEndpoints(db, scopeB, 10, 0)).toEqual({ rows: [], total: 0 });
    expect((await enabledEndpoints(db, scopeA)).map((r) => r.id)).toEqual([endpointId]);
    expect(await enabledEndpoints(db, scopeB)).toEqual([]);

    const filter = { endpoint_id: [endpointId] };
    const deliveriesA = await repo.listDeliveries(db, scopeA, filter, 10, 0);
    expect(deliveriesA.rows.map((r) => r.event.id)).toEqual([eventId]);
    expect(await repo.listDeliveries(db, scopeB, filter, 10, 0)).toEqual({ rows: [], total: 0 });
    expect((await repo.findEndpointEvent(db, scopeA, eventId))?.id).toBe(eventId);
    expect(await repo.findEndpointEvent(db, scopeB, eventId)).toBeNull();
  });
});
