// A real till server on a random port over a fresh test database, built by the same start() that
// `till serve` uses.
import net from "node:net";
import { loadConfig, type Config, type Env } from "../../server/config.ts";
import type { Clock } from "../../server/lib/clock.ts";
import { start, type RunningServer } from "../../server/main.ts";
import { openTestDatabase, type TestDatabase } from "./db.ts";

export interface TestServer {
  url: string;
  config: Readonly<Config>;
  server: RunningServer;
  testDb: TestDatabase;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  env?: Env;
  clock?: Clock;
  worker?: boolean;
}

/** A free port, so BASE_URL (links, trusted origins, the embed script) names the real address. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const testDb = await openTestDatabase();
  const config = loadConfig({
    command: "test",
    env: { PORT: String(await freePort()), LOG_LEVEL: "silent", ...(testDb.url ? { DATABASE_URL: testDb.url } : {}), ...options.env },
  });
  const server = await start(config, {
    database: testDb.database,
    ...(options.clock ? { clock: options.clock } : {}),
    worker: options.worker ?? true,
  });
  return {
    url: server.url,
    config,
    server,
    testDb,
    async stop() {
      await server.stop();
      await testDb.dispose();
    },
  };
}
