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

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  // A real port known before start, so BASE_URL (better-auth's origin checks, the links in emails,
  // OAuth redirect URIs) names the address the tests call. Retried if another process takes it.
  let config: Readonly<Config>;
  let server: RunningServer;
  let testDb: TestDatabase;
  for (let attempt = 1; ; attempt++) {
    testDb = await openTestDatabase();
    const port = await freePort();
    config = loadConfig({
      command: "test",
      env: {
        PORT: String(port),
        BASE_URL: `http://localhost:${port}`,
        LOG_LEVEL: "silent",
        ...testDb.env,
        ...options.env,
      },
    });
    try {
      server = await start(config, {
        database: testDb.database,
        ...(options.clock ? { clock: options.clock } : {}),
        worker: options.worker ?? true,
      });
      break;
    } catch (err) {
      // start() closed the database on its way out; drop it and take a fresh one.
      await testDb.dispose().catch(() => {});
      if (attempt >= 3 || (err as Error).name !== "PortInUseError") throw err;
    }
  }
  return {
    url: config.baseUrl,
    config,
    server,
    testDb,
    async stop() {
      await server.stop();
      await testDb.dispose();
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
