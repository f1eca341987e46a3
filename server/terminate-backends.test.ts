// Fault test with a real process: every backend of `till serve`'s database is terminated
// (pg_terminate_backend) again and again while requests write in transactions and the worker
// delivers their webhooks. The process stays up, answers 200 or 503 ServiceUnavailable meanwhile
// (never a 500, never a hang), /readyz is 200 again once the pool has reconnected, and every event
// is delivered. Before, a transaction's next statement or ROLLBACK written to its terminated
// connection threw inside the driver and ended the process. PostgreSQL only.
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { api, createAccessToken, createOrganization, signUp } from "../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../test/helpers/process.ts";
import { serveEnv } from "../test/helpers/spawned-seller.ts";
import { startReceiver, waitFor } from "../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
let admin: postgres.Sql | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await admin?.end();
  await testDb?.dispose();
});

describe.skipIf(!usingPostgres())(
  "till serve while its database connections are terminated",
  () => {
    it("stays up, answers 200 or 503, recovers without a restart, loses no event", {
      timeout: 180_000,
    }, async () => {
      let secret = "";
      const receiver = await startReceiver({
        secretFor: (p) => (p === "/terminated" ? secret : undefined),
        skipParse: true,
      });
      const cwd = tempDir("till-terminate-");
      testDb = await openTestDatabase();
      const server = await spawnTillServer("serve", await serveEnv(cwd, testDb.url!), cwd);
      children.push(server);
      let exited = false;
      void server.child.then(() => {
        exited = true;
      });
      const user = await signUp(server.url);
      const org = await createOrganization(server.url, user);
      const token = await createAccessToken(server.url, user, org.id, [
        "webhooks:write",
        "organizations:write",
      ]);
      const ep = await api(server.url, "/v1/webhooks/endpoints", {
        token,
        body: {
          url: `${receiver.url}/terminated`,
          format: "raw",
          events: ["organization.updated"],
        },
      });
      expect(ep.status).toBe(201);
      secret = ep.body.secret;

      admin = postgres(testDb.url!, { max: 1, onnotice: () => {} });
      const answers: { status: number; ms: number }[] = [];
      let updated = 0;
      let stop = false;
      // Four clients writing at once: transactions are open on several connections at each cut.
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const t0 = performance.now();
          const res = await api(server.url, `/v1/organizations/${org.id}`, {
            method: "PATCH",
            token,
            body: { name: `Org ${w}-${i}` },
          }).catch(() => ({ status: 0, body: null }));
          answers.push({ status: res.status, ms: performance.now() - t0 });
          if (res.status === 200) updated++;
          if (res.status === 503) expect(res.body.error).toBe("ServiceUnavailable");
          if (res.status === 0) return;
        }
      };
      const writers = Promise.all([0, 1, 2, 3].map(writer));
      for (let round = 0; round < 10; round++) {
        await new Promise((r) => setTimeout(r, 500));
        await admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`;
      }
      await new Promise((r) => setTimeout(r, 1000));
      stop = true;
      await writers;

      expect(exited, server.output().slice(-2000)).toBe(false);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
      expect(answers.filter((a) => a.ms > 10_000)).toEqual([]);
      await waitFor(
        async () => (await fetch(`${server.url}/readyz`)).status === 200,
        20_000,
        "/readyz answering 200 again",
      );
      const after = await api(server.url, `/v1/organizations/${org.id}`, {
        method: "PATCH",
        token,
        body: { name: "After" },
      });
      expect(after.status).toBe(200);
      // Each update's event reaches the endpoint, through a worker whose connections were cut too.
      const delivered = () => new Set(receiver.receipts.map((r) => r.id)).size;
      await waitFor(() => delivered() >= updated + 1, 120_000, "every update's webhook delivered");
      await receiver.close();
    });
  },
);
