// The wake-up job of a subscription's boundary is held by its worker through a heartbeat, not a
// one-minute expiry: a window of thousands of renewals runs past a minute, and under the expiry
// pg-boss handed it to a second worker while the first still ran it. A dead worker's job still
// comes back within about a minute, once its heartbeat stops.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, monthlyProduct, subscribe } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { JOB_HEARTBEAT_SECONDS } from "../../jobs/queue.ts";
import { SUBSCRIPTION_DUE_JOB } from "./jobs.ts";

let t: TestServer;
beforeAll(async () => {
  // No worker: the job the purchase queues stays as it was queued.
  t = await startTestServer({ worker: false });
});
afterAll(() => t.stop());

describe("subscriptions due job", () => {
  it("a renewal's wake-up job carries the heartbeat, and an expiry past a long window", async () => {
    const s = await billingSeller(t);
    const product = await monthlyProduct(s, "Pro", 1500);
    await subscribe(s, product.id);
    const jobs = await t.server.database.rows<{
      heartbeat_seconds: number | null;
      expire_seconds: number;
    }>(
      sql`select heartbeat_seconds, expire_seconds from pgboss.job
        where name = ${SUBSCRIPTION_DUE_JOB} and data->>'organizationId' = ${s.organizationId}`,
    );
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(job.heartbeat_seconds).toBe(JOB_HEARTBEAT_SECONDS);
      expect(job.expire_seconds).toBeGreaterThanOrEqual(15 * 60);
    }
  });
});
