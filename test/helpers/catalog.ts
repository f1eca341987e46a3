// Helpers for the catalog tests: a test server on a known port (so BASE_URL, and with it upload and
// media URLs, point at the real server), Polar's official client aimed at it, meters inserted
// directly (their API belongs to another module), and row counts for "nothing changed" checks.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { Clock } from "../../server/lib/clock.ts";
import { startTestServer, type TestServer } from "./server.ts";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function startCatalogServer(options: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "till-catalog-"));
  const port = await freePort();
  const t = await startTestServer({
    env: { PORT: String(port), HOST: "127.0.0.1", BASE_URL: `http://127.0.0.1:${port}`, TILL_DATA_DIR: dataDir, ...options.env },
    ...(options.clock ? { clock: options.clock } : {}),
    worker: false,
  });
  return {
    ...t,
    async stop() {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function polarFor(t: TestServer, accessToken: string): Polar {
  return new Polar({ accessToken, serverURL: t.url });
}

export async function insertMeter(t: TestServer, organizationId: string, name = "API calls", archived = false): Promise<string> {
  const [row] = await t.server.database.rows<{ id: string }>(sql`
    insert into meters (organization_id, name, filter, aggregation, archived_at)
    values (${organizationId}, ${name}, ${JSON.stringify({ conjunction: "and", clauses: [] })}::jsonb, ${JSON.stringify({ func: "count" })}::jsonb, ${archived ? sql`now()` : sql`null`})
    returning id`);
  return row!.id;
}

/** Row count of a table, optionally for one organization (tables with an organization_id column). */
export async function countRows(t: TestServer, table: string, organizationId?: string): Promise<number> {
  const where = organizationId ? sql` where organization_id = ${organizationId}` : sql``;
  const [row] = await t.server.database.rows<{ n: number | string }>(sql`select count(*)::int as n from ${sql.identifier(table)}${where}`);
  return Number(row!.n);
}

export async function eventsOf(t: TestServer, organizationId: string) {
  return t.server.database.rows<{ type: string; payload: { type: string; data: Record<string, unknown> } }>(
    sql`select type, payload from webhook_events where organization_id = ${organizationId} order by seq`,
  );
}
