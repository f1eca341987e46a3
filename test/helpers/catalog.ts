// Helpers for the catalog tests: a test server on a known port (so BASE_URL, and with it upload and
// media URLs, point at the real server), Polar's official client aimed at it, meters inserted
// directly (their API belongs to another module), and row counts for "nothing changed" checks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { Clock } from "../../server/lib/clock.ts";
import { api } from "./auth.ts";
import { freePort, startTestServer, type TestServer } from "./server.ts";

export async function startCatalogServer(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "till-catalog-"));
  const port = await freePort();
  const t = await startTestServer({
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      TILL_DATA_DIR: dataDir,
      ...options.env,
    },
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

/** A one-time $1 discount named `name`, through Polar's client (a name for a list to sort by). */
export function oneDollarOff(polar: Polar, name: string) {
  return polar.discounts.create({
    name,
    type: "fixed",
    amount: 100,
    currency: "usd",
    duration: "once",
  });
}

export async function insertMeter(
  t: TestServer,
  organizationId: string,
  name = "API calls",
  archived = false,
): Promise<string> {
  const [row] = await t.server.database.rows<{ id: string }>(sql`
    insert into meters (organization_id, name, filter, aggregation, archived_at)
    values (${organizationId}, ${name}, ${JSON.stringify({ conjunction: "and", clauses: [] })}::jsonb, ${JSON.stringify({ func: "count" })}::jsonb, ${archived ? sql`now()` : sql`null`})
    returning id`);
  return row!.id;
}

/** Row count of a table, optionally for one organization (tables with an organization_id column). */
/** A meter counting the events named `eventName`, made through the API; answers its id. */
export async function createCountMeter(
  url: string,
  token: string,
  name: string,
  eventName: string,
): Promise<string> {
  const res = await api(url, "/v1/meters/", {
    token,
    body: {
      name,
      filter: {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: eventName }],
      },
      aggregation: { func: "count" },
    },
  });
  if (res.status !== 201) throw new Error(`meter: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function countRows(
  t: TestServer,
  table: string,
  organizationId?: string,
): Promise<number> {
  const where = organizationId ? sql` where organization_id = ${organizationId}` : sql``;
  const [row] = await t.server.database.rows<{ n: number | string }>(
    sql`select count(*)::int as n from ${sql.identifier(table)}${where}`,
  );
  return Number(row!.n);
}

export async function eventsOf(t: TestServer, organizationId: string) {
  return t.server.database.rows<{
    type: string;
    payload: { type: string; timestamp: string; data: Record<string, unknown> };
  }>(
    sql`select type, payload from webhook_events where organization_id = ${organizationId} order by seq`,
  );
}

export interface UploadOptions {
  service?: "product_media" | "downloadable" | "organization_avatar";
  name?: string;
  mimeType?: string;
  /** Part size in bytes (the last part takes the rest). */
  partSize?: number;
}

/** Polar's whole upload flow through the official client: create, PUT every part, complete. */
export async function uploadFile(
  t: TestServer,
  token: string,
  content: Buffer,
  options: UploadOptions = {},
) {
  const { createHash } = await import("node:crypto");
  const polar = polarFor(t, token);
  const partSize = options.partSize ?? Math.max(content.length, 1);
  const parts = [];
  for (let start = 0, n = 1; start < content.length || n === 1; start += partSize, n++) {
    const end = Math.min(start + partSize, content.length);
    parts.push({
      number: n,
      chunkStart: start,
      chunkEnd: end,
      checksumSha256Base64: createHash("sha256")
        .update(content.subarray(start, end))
        .digest("base64"),
    });
    if (end >= content.length) break;
  }
  const service = options.service ?? "product_media";
  const created = await polar.files.create({
    service,
    name: options.name ?? (service === "downloadable" ? "manual.pdf" : "cover.png"),
    mimeType: options.mimeType ?? (service === "downloadable" ? "application/pdf" : "image/png"),
    size: content.length,
    checksumSha256Base64: createHash("sha256").update(content).digest("base64"),
    upload: { parts },
  } as Parameters<typeof polar.files.create>[0]);
  const completed = [];
  for (const part of created.upload.parts) {
    const res = await fetch(part.url, {
      method: "PUT",
      headers: part.headers ?? {},
      body: new Uint8Array(content.subarray(part.chunkStart, part.chunkEnd)),
    });
    if (res.status !== 200)
      throw new Error(`part ${part.number} upload failed: ${res.status} ${await res.text()}`);
    completed.push({
      number: part.number,
      checksumEtag: res.headers.get("etag")!,
      checksumSha256Base64: part.checksumSha256Base64 ?? null,
    });
  }
  const file = await polar.files.uploaded({
    id: created.id,
    fileUploadCompleted: { id: created.upload.id, path: created.upload.path, parts: completed },
  });
  return { created, file };
}
