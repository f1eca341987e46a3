// Delivery jobs whose worker died holding them: handed back while pg-boss has retries left for them;
// past that, the job is given up and its event ends failed, instead of staying pending with no job
// left to send it. No worker runs here, so the jobs held are exactly the ones this test claims.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { systemClock } from "../../lib/clock.ts";
import { Claims, RETRY_LIMIT } from "./claims.ts";
import { DELIVER_JOB } from "./job-names.ts";
import { recordEvent } from "./outbox.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(() => t.stop());

/** An endpoint event and its delivery job, claimed by a worker that then died after `retries` earlier deaths. */
async function orphanedDelivery(organizationId: string, endpointId: string, retries: number) {
  const { db } = t.server.database;
  const eventId = await inTransaction(db, (tx) =>
    recordEvent(tx, systemClock, { organizationId, type: "order.paid", data: { retries } }),
  );
  const [row] = await t.server.database.rows<{ id: string }>(sql`
    insert into webhook_endpoint_events (organization_id, endpoint_id, event_id, seq, type, payload)
    select organization_id, ${endpointId}, id, seq, type, payload::text from webhook_events where id = ${eventId}
    returning id`);
  const { boss } = t.server.queue;
  const jobId = await boss.send(DELIVER_JOB, { id: row!.id, attempt: 1 });
  const [claimed] = await boss.fetch(DELIVER_JOB, { batchSize: 1 });
  expect(claimed?.id).toBe(jobId);
  await t.server.database.rows(
    sql`update pgboss.job set retry_count = ${retries}, heartbeat_on = now() - interval '1 hour' where id = ${jobId}`,
  );
  return { endpointEventId: row!.id, jobId: jobId! };
}

async function stateOf(d: { endpointEventId: string; jobId: string }) {
  const [job] = await t.server.database.rows<{ state: string }>(
    sql`select state from pgboss.job where id = ${d.jobId}`,
  );
  const [event] = await t.server.database.rows<{ status: string }>(
    sql`select status from webhook_endpoint_events where id = ${d.endpointEventId}`,
  );
  return { job: job?.state, event: event?.status };
}

describe("orphaned delivery jobs", () => {
  it("hands a job back while it has retries left; past them, gives it up and ends its event failed", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    const endpoint = await api(t.url, "/v1/webhooks/endpoints", {
      token: seller.token,
      body: { url: "http://127.0.0.1:9/hook", format: "raw", events: ["order.paid"] },
    });
    expect(endpoint.status).toBe(201);
    const lastChance = await orphanedDelivery(
      seller.organization.id,
      endpoint.body.id,
      RETRY_LIMIT - 1,
    );
    const spent = await orphanedDelivery(seller.organization.id, endpoint.body.id, RETRY_LIMIT);

    // Another worker's sweep finds both heartbeats stale.
    await new Claims({
      db: t.server.database.db,
      boss: t.server.queue.boss,
      clock: systemClock,
      log: t.server.log,
    }).tend([]);

    expect(await stateOf(lastChance)).toEqual({ job: "retry", event: "pending" });
    expect(await stateOf(spent)).toEqual({ job: "failed", event: "failed" });
  });
});
