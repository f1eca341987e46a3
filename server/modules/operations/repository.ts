// SQL behind the operational metrics at /metrics (lib/metrics.ts): read at scrape time, small and bounded.
import { gte, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { webhookEndpointEvents } from "../../../db/schema/index.ts";

/**
 * Webhook deliveries (one per event and endpoint) created since `since`, by outcome: pending,
 * delivered or failed. A range on webhook_endpoint_events_created_idx, not a table scan.
 */
export async function deliveryOutcomes(
  db: Db,
  since: Date,
): Promise<{ status: string; n: number }[]> {
  return db
    .select({ status: webhookEndpointEvents.status, n: sql<number>`count(*)::int` })
    .from(webhookEndpointEvents)
    .where(gte(webhookEndpointEvents.createdAt, since))
    .groupBy(webhookEndpointEvents.status);
}

/** This server's pooled connections PostgreSQL sees, busy or idle (postgres.js shows no counts). */
export async function poolConnections(db: Db): Promise<{ state: string; n: number }[]> {
  const rows = await db.execute(
    sql`select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity
        where application_name = 'till' and pid <> pg_backend_pid() group by 1`,
  );
  return (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as {
    state: string;
    n: number;
  }[];
}
