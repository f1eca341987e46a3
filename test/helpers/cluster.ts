// A second till instance on the same PostgreSQL database as a running test server, started by the
// same start() as `till serve`, to test what must work across instances.
import { openDb } from "../../db/client.ts";
import { loadConfig, type Env } from "../../server/config.ts";
import { start, type RunningServer } from "../../server/main.ts";
import type { TestServer } from "./server.ts";

export async function startSibling(
  first: TestServer,
  env: Env = {},
): Promise<{ url: string; server: RunningServer; stop(): Promise<void> }> {
  const url = first.testDb.url;
  if (!url) throw new Error("a second instance needs PostgreSQL (TEST_DATABASE_URL)");
  const config = loadConfig({
    command: "test",
    env: { PORT: "0", LOG_LEVEL: "silent", DATABASE_URL: url, ...env },
  });
  const database = await openDb({ kind: "postgres", url, poolSize: 5 });
  const server = await start(config, { database });
  return { url: server.url, server, stop: () => server.stop() };
}
