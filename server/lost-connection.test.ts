// A `till serve` process whose read replica stops while a new connection to it is being set up
// (postgres.js reading its array types, a read nobody awaits) keeps running: the lost connection is
// logged, the read answers from the primary, and the server goes on answering. Before, the
// unhandled rejection ended the process. PostgreSQL only: PGlite has no connections to lose.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { CuttableProxy } from "../test/helpers/cuttable-proxy.ts";
import { openTestDatabase, type TestDatabase, usingPostgres } from "../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../test/helpers/process.ts";
import { serveEnv } from "../test/helpers/spawned-seller.ts";

describe.skipIf(!usingPostgres())(
  "a replica lost while its connection is set up",
  { timeout: 90_000 },
  () => {
    let testDb: TestDatabase;
    let proxy: CuttableProxy;
    let server: SpawnedServer;
    let exit: string | null = null;
    let tripped: Promise<void>;

    beforeAll(async () => {
      testDb = await openTestDatabase();
      const direct = new URL(testDb.url!);
      proxy = new CuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const replica = new URL(direct);
      replica.host = `127.0.0.1:${await proxy.listen()}`;
      // The first connection to the replica drops, and the replica refuses the next ones, as the
      // client asks for the database's array types.
      tripped = proxy.tripOn("pg_catalog.pg_type");
      const cwd = tempDir("till-lost-connection-");
      server = await spawnTillServer(
        "serve",
        {
          ...(await serveEnv(cwd, testDb.url!)),
          DATABASE_READ_URL: replica.toString(),
          DATABASE_CONNECT_TIMEOUT_MS: "1000",
        },
        cwd,
      );
      server.child.then(
        (r) => (exit = `exited (code ${r.exitCode})`),
        (e: { exitCode?: number; signal?: string }) =>
          (exit = `exited (code ${e.exitCode}, signal ${e.signal})`),
      );
    });
    afterAll(async () => {
      proxy?.close();
      server?.child.kill("SIGTERM");
      await server?.child.catch(() => {});
      await testDb?.dispose();
    });

    it("logs the lost connection and goes on answering, from the primary", async () => {
      const { token } = await createSeller(server.url, ["events:write", "meters:write"]);
      const events = () => api(server.url, "/v1/events/?limit=1", { token });
      const first = await events();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      await tripped;
      // The refused reconnect rejects the type read at once; give the process a moment to end, as
      // it did before.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(exit, server.output().slice(-4000)).toBeNull();
      for (let i = 0; i < 3; i++) expect((await events()).status).toBe(200);
      expect(server.output()).toContain("a database connection was lost with no statement waiting");
      expect(exit).toBeNull();
    });
  },
);
