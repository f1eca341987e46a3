// EVENT_DEDUP_RETENTION_DAYS: the daily job deletes the external ids claimed before the window, in
// batches, so a retry of one of them is stored again while newer ids still catch duplicates; with
// the setting at 0 (the default) nothing is ever deleted.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { systemClock } from "../../lib/clock.ts";
import { createLogger } from "../../lib/logger.ts";
import { PRUNE_DEDUP_JOB, pruneDedupJob } from "./jobs.ts";
import { pruneEventDedup } from "./partition-repository.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
const DAY_MS = 86_400_000;
let t: TestServer;
let seller: Seller;
beforeAll(async () => {
  t = await startTestServer({ env: { EVENT_DEDUP_RETENTION_DAYS: "30" } });
  seller = await createSeller(t.url, ["events:write"]);
});
afterAll(() => t.stop());

const ingest = (externalIds: string[]) =>
  api(t.url, "/v1/events/ingest", {
    token: seller.token,
    body: {
      events: externalIds.map((id) => ({
        name: "retained",
        external_customer_id: "u1",
        external_id: id,
      })),
    },
  });
const rows = <T>(query: ReturnType<typeof sql>) => t.server.database.rows<T>(query);

/** Moves the claim of these ids `days` into the past. */
async function age(externalIds: string[], days: number): Promise<void> {
  const at = new Date(Date.now() - days * DAY_MS).toISOString();
  for (const id of externalIds)
    await rows(
      sql`update event_dedup set claimed_at = ${at}::timestamptz where organization_id = ${seller.organization.id} and external_id = ${id}`,
    );
}

async function claimed(prefix: string): Promise<string[]> {
  const found = await rows<{ id: string }>(
    sql`select external_id as id from event_dedup where organization_id = ${seller.organization.id}
        and external_id like ${`${prefix}%`} order by 1`,
  );
  return found.map((r) => r.id);
}

describe("external id retention", () => {
  it("the daily job deletes ids claimed before the window; a retry of one is then stored again", async () => {
    expect((await ingest(["job-old-1", "job-old-2", "job-new"])).body).toEqual({
      inserted: 3,
      duplicates: 0,
    });
    await age(["job-old-1", "job-old-2"], 31);
    await age(["job-new"], 29);

    const jobId = await t.server.queue.send(PRUNE_DEDUP_JOB, {});
    await waitFor(
      async () =>
        (await t.server.queue.boss.getJobById(PRUNE_DEDUP_JOB, jobId!))?.state === "completed",
      15_000,
      "prune job",
    );
    expect(await claimed("job-")).toEqual(["job-new"]);

    // The id still inside the window is a duplicate; the pruned one is taken as a new event.
    expect((await ingest(["job-old-1", "job-new"])).body).toEqual({
      inserted: 1,
      duplicates: 1,
    });
    const [stored] = await rows<{ n: number }>(
      sql`select count(*)::int as n from events where external_id = 'job-old-1'`,
    );
    expect(stored!.n).toBe(2);
    expect(await claimed("job-")).toEqual(["job-new", "job-old-1"]);
  });

  it("deletes in batches and stops when its budget is spent, the next run going on", async () => {
    const ids = ["batch-1", "batch-2", "batch-3", "batch-4", "batch-5"];
    await ingest(ids);
    await age(ids, 40);
    const before = new Date(Date.now() - 30 * DAY_MS);
    const db = t.server.database.db;
    expect(await pruneEventDedup(db, before, { batch: 2, budgetMs: 0 })).toEqual({
      deleted: 2,
      done: false,
    });
    expect(await claimed("batch-")).toHaveLength(3);
    expect(await pruneEventDedup(db, before, { batch: 2 })).toEqual({ deleted: 3, done: true });
    expect(await claimed("batch-")).toEqual([]);
    expect(await pruneEventDedup(db, before, { batch: 2 })).toEqual({ deleted: 0, done: true });
  });

  it("keeps every id for good at the default of 0 days", async () => {
    await ingest(["keep-1"]);
    await age(["keep-1"], 3650);
    const job = pruneDedupJob({
      db: t.server.database.db,
      clock: systemClock,
      log: createLogger({ level: "silent", format: "json" }),
      retentionDays: 0,
    });
    expect(await job.handle([])).toEqual({ deleted: 0, done: true });
    expect(await claimed("keep-")).toEqual(["keep-1"]);
    expect((await ingest(["keep-1"])).body).toEqual({ inserted: 0, duplicates: 1 });
  });
});
