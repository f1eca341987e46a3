// Fault test with real processes: `till serve` is SIGKILLed while 500 events are still queued for a
// slow endpoint, then started again on the same database; every event reaches the endpoint, the jobs
// the dead process held come back within seconds (at start on PGlite, after their heartbeat goes
// stale on PostgreSQL), and only the attempts that were in flight at the kill are sent twice.
import { serveEnv } from "../../../test/helpers/spawned-seller.ts";
import { afterAll, describe, expect, it } from "vitest";
import { api, createAccessToken, createOrganization, signUp } from "../../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { startReceiver, waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

describe(`till serve killed with deliveries queued (${usingPostgres() ? "PostgreSQL" : "PGlite data dir"})`, () => {
  it("SIGKILL with 500 events queued, restart: every event is delivered, none lost", {
    timeout: 180_000,
  }, async () => {
    let secret = "";
    // A slow endpoint that, after its first 100 requests, answers nothing more until the kill: most
    // of the 500 are then still queued when the server dies, however fast or loaded the machine is.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = () => new Promise<number>((r) => setTimeout(() => r(200), 40));
    const receiver = await startReceiver({
      secretFor: (p) => (p === "/crash" ? secret : undefined),
      skipParse: true,
      respond: (_, n) => (n <= 100 ? slow() : held.then(slow)),
    });
    const cwd = tempDir("till-crash-");
    const env = await serveEnv(cwd);
    if (usingPostgres()) {
      testDb = await openTestDatabase();
      env.DATABASE_URL = testDb.url!;
    }
    try {
      const first = await spawnTillServer("serve", env, cwd);
      children.push(first);
      const user = await signUp(first.url);
      const org = await createOrganization(first.url, user);
      const token = await createAccessToken(first.url, user, org.id, [
        "webhooks:write",
        "organizations:write",
      ]);
      const ep = await api(first.url, "/v1/webhooks/endpoints", {
        token,
        body: { url: `${receiver.url}/crash`, format: "raw", events: ["organization.updated"] },
      });
      expect(ep.status).toBe(201);
      secret = ep.body.secret;
      for (let i = 0; i < 500; i++) {
        const res = await api(first.url, `/v1/organizations/${org.id}`, {
          method: "PATCH",
          token,
          body: { website: `https://u${i}.test` },
        });
        expect(res.status).toBe(200);
      }
      const beforeKill = new Set(receiver.receipts.map((r) => r.id)).size;
      const receiptsBeforeKill = receiver.receipts.length;
      const killedAt = Date.now();
      first.child.kill("SIGKILL");
      await first.child;
      release();
      expect(beforeKill).toBeLessThan(450);
      // While it lived, the server sent no event twice.
      expect(receiptsBeforeKill).toBe(beforeKill);

      const second = await spawnTillServer("serve", env, cwd);
      children.push(second);
      const restartedAt = Date.now();
      await waitFor(
        () => new Set(receiver.receipts.map((r) => r.id)).size >= 500,
        120_000,
        "all 500 events delivered after restart",
      );
      const doneAt = Date.now();
      const sentAgain = receiver.receipts.length - 500;
      console.log(
        `delivered before kill ${beforeKill}; restarted ${restartedAt - killedAt} ms after the kill, the rest took ${doneAt - restartedAt} ms (${doneAt - killedAt} ms after the kill); ${sentAgain} sent again`,
      );
      const sites = new Set(
        receiver.receipts.map((r) => JSON.parse(r.body).data.website as string),
      );
      expect(sites.size).toBe(500);
      for (let i = 0; i < 500; i++) expect(sites.has(`https://u${i}.test`)).toBe(true);
      expect(receiver.receipts.every((r) => r.standardOk && r.polarOk)).toBe(true);
      // Attempts that reached the endpoint but were not yet recorded when the process died are sent
      // again after the restart: the same webhook-id and the same bytes, so a receiver can dedupe.
      // One endpoint, one request at a time: at the kill, one attempt was in flight and a few that had
      // just finished were waiting to be recorded (a flush window and a transaction; 2 in quiet runs).
      expect(sentAgain).toBeLessThanOrEqual(10);
      const byId = new Map<string, string>();
      for (const r of receiver.receipts) {
        if (byId.has(r.id)) expect(r.body).toBe(byId.get(r.id));
        byId.set(r.id, r.body);
      }
      expect(byId.size).toBe(500);
      const succeeded = async () =>
        (
          await api(
            second.url,
            `/v1/webhooks/deliveries?endpoint_id=${ep.body.id}&succeeded=true&limit=1`,
            { token },
          )
        ).body.pagination.total_count as number;
      // The receiver answers before the attempt is recorded (a flush window and a transaction):
      // the last few records may land just after the 500th receipt.
      await waitFor(async () => (await succeeded()) >= 500, 10_000, "all attempts recorded");
      // Each event's successful attempt is recorded exactly once, re-sent ones included.
      expect(await succeeded()).toBe(500);
      second.child.kill("SIGTERM");
      await second.child;
    } finally {
      await receiver.close();
    }
  });
});
