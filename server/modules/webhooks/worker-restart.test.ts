// Fault test with real processes on PostgreSQL: two `till serve --no-worker` and one `till worker`.
// The worker is SIGKILLed while a 150-event backlog drains to a slow endpoint and started again 1 s
// later; every event must reach the endpoint within 20 s of the restart (the dead worker's jobs come
// back once their heartbeat is stale, and the endpoint's FIFO follows them).
import type { ResultPromise } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { api, createAccessToken, createOrganization, signUp } from "../../../test/helpers/auth.ts";
import { openTestDatabase, type TestDatabase, usingPostgres } from "../../../test/helpers/db.ts";
import {
  spawnTillServer,
  spawnTillWorker,
  tempDir,
  type SpawnedServer,
} from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { startReceiver, waitFor } from "../../../test/helpers/webhook-receiver.ts";

const EVENTS = 150;
let testDb: TestDatabase | null = null;
const children: ResultPromise[] = [];
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await testDb?.dispose();
});

async function spawnWorkerTracked(env: Record<string, string>, cwd: string) {
  const worker = await spawnTillWorker(env, cwd);
  children.push(worker.child);
  return worker;
}

describe.skipIf(!usingPostgres())(
  "till worker SIGKILLed mid-backlog and restarted after 1 s",
  () => {
    it(`every one of ${EVENTS} events is delivered within 20 s of the restart`, {
      timeout: 120_000,
    }, async () => {
      let secret = "";
      const receiver = await startReceiver({
        secretFor: (p) => (p === "/restart" ? secret : undefined),
        skipParse: true,
        respond: () => new Promise((r) => setTimeout(() => r(200), 40)),
      });
      const cwd = tempDir("till-worker-restart-");
      testDb = await openTestDatabase();
      const base: Record<string, string> = {
        AUTH_SECRET: "w".repeat(40),
        TILL_MODE: "sandbox",
        AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
        AUTH_RATE_LIMIT: "false",
        LOG_LEVEL: "warn",
        DATABASE_URL: testDb.url!,
      };
      try {
        const servers: SpawnedServer[] = [];
        for (let i = 0; i < 2; i++) {
          const port = await freePort();
          const env = { ...base, PORT: String(port), BASE_URL: `http://localhost:${port}` };
          const s = await spawnTillServerNoWorker(env, cwd);
          children.push(s.child);
          servers.push(s);
        }
        const [a, b] = servers as [SpawnedServer, SpawnedServer];
        const { child: worker } = await spawnWorkerTracked(base, cwd);
        const user = await signUp(a.url);
        const org = await createOrganization(a.url, user);
        const token = await createAccessToken(a.url, user, org.id, [
          "webhooks:write",
          "organizations:write",
        ]);
        const ep = await api(a.url, "/v1/webhooks/endpoints", {
          token,
          body: { url: `${receiver.url}/restart`, format: "raw", events: ["organization.updated"] },
        });
        expect(ep.status).toBe(201);
        secret = ep.body.secret;
        for (let i = 0; i < EVENTS; i++) {
          const res = await api(i % 2 ? b.url : a.url, `/v1/organizations/${org.id}`, {
            method: "PATCH",
            token,
            body: { website: `https://r${i}.test` },
          });
          expect(res.status).toBe(200);
        }
        const unique = () => new Set(receiver.receipts.map((r) => r.id)).size;
        await waitFor(() => unique() >= 10, 30_000, "the backlog starts draining");
        const beforeKill = unique();
        worker.kill("SIGKILL");
        await worker;
        const killedAt = Date.now();
        expect(beforeKill).toBeLessThan(EVENTS);
        await new Promise((r) => setTimeout(r, 1_000));
        await spawnWorkerTracked(base, cwd);
        const restartedAt = Date.now();
        await waitFor(
          () => unique() >= EVENTS,
          20_000,
          `all ${EVENTS} events within 20 s of the restart`,
        );
        const doneAt = Date.now();
        console.log(
          `worker restart: ${beforeKill} delivered before the kill; restarted ${restartedAt - killedAt} ms after it; the other ${EVENTS - beforeKill} took ${doneAt - restartedAt} ms after the restart; ${receiver.receipts.length - EVENTS} sent again`,
        );
        // FIFO for one endpoint: the events' first arrivals are in the order they were recorded.
        const firstSeen: number[] = [];
        const seen = new Set<string>();
        for (const r of receiver.receipts) {
          if (seen.has(r.id)) continue;
          seen.add(r.id);
          firstSeen.push(Number(/https:\/\/r(\d+)\.test/.exec(r.body)?.[1]));
        }
        expect(firstSeen).toEqual([...firstSeen].sort((x, y) => x - y));
        expect(receiver.receipts.every((r) => r.standardOk && r.polarOk)).toBe(true);
      } finally {
        await receiver.close();
      }
    });
  },
);

async function spawnTillServerNoWorker(
  env: Record<string, string>,
  cwd: string,
): Promise<SpawnedServer> {
  return spawnTillServer("serve", env, cwd, ["--no-worker"]);
}
