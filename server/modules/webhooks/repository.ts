// SQL behind the webhooks API: endpoints, the delivery log and single events, always scoped to the
// caller's organization ids. The worker's queries live in delivery-repository.ts.
import { and, count, desc, eq, gte, inArray, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import {
  webhookDeliveries,
  webhookEndpointEvents,
  webhookEndpoints,
  webhookListenSecrets,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import type {
  DeliveryListQuery,
  DeliveryRecord,
  DeliveryRow,
  EndpointEventRow,
  EndpointRow,
} from "./schemas.ts";

export type { DeliveryRecord, DeliveryRow, EndpointEventRow, EndpointRow };

export async function insertEndpoint(
  db: Db,
  values: typeof webhookEndpoints.$inferInsert,
): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row!;
}

export async function listEndpoints(
  db: Db,
  scope: OrgScope,
  limit: number,
  offset: number,
): Promise<{ rows: EndpointRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const where = inScope(webhookEndpoints.organizationId, scope);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(webhookEndpoints)
      .where(where)
      .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(webhookEndpoints).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function findEndpoint(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<EndpointRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), inScope(webhookEndpoints.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

export async function updateEndpoint(
  db: Db,
  id: string,
  values: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<EndpointRow> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(values)
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row!;
}

export async function deleteEndpoint(db: Db, id: string): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

export async function listDeliveries(
  db: Db,
  scope: OrgScope,
  filter: DeliveryListQuery,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRecord[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const d = webhookDeliveries;
  const e = webhookEndpointEvents;
  const conds: SQL[] = [inScope(d.organizationId, scope)];
  if (filter.endpoint_id) conds.push(inArray(d.endpointId, filter.endpoint_id));
  if (filter.start_timestamp) conds.push(gte(d.createdAt, new Date(filter.start_timestamp)));
  if (filter.end_timestamp) conds.push(lte(d.createdAt, new Date(filter.end_timestamp)));
  if (filter.succeeded !== undefined) conds.push(eq(d.succeeded, filter.succeeded));
  if (filter.event_type) conds.push(inArray(e.type, filter.event_type));
  if (filter.http_code_class) {
    const low = Number(filter.http_code_class[0]) * 100;
    conds.push(and(gte(d.httpCode, low), lt(d.httpCode, low + 100))!);
  }
  if (filter.query) {
    const like = `%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(sql`(${d.response} ilike ${like} or ${e.payload} ilike ${like})`);
  }
  const where = and(...conds);
  const [rows, [totals]] = await Promise.all([
    db
      .select({ delivery: d, event: e })
      .from(d)
      .innerJoin(e, eq(e.id, d.webhookEventId))
      .where(where)
      .orderBy(desc(d.createdAt), desc(d.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(d).innerJoin(e, eq(e.id, d.webhookEventId)).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function findEndpointEvent(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<EndpointEventRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(webhookEndpointEvents)
    .where(
      and(eq(webhookEndpointEvents.id, id), inScope(webhookEndpointEvents.organizationId, scope)),
    )
    .limit(1);
  return row ?? null;
}

/** The user's listen secret for an organization, created on first use. */
export async function listenSecret(
  db: Db,
  userId: string,
  organizationId: string,
  fresh: string,
): Promise<string> {
  await db
    .insert(webhookListenSecrets)
    .values({ userId, organizationId, secret: fresh })
    .onConflictDoNothing();
  const [row] = await db
    .select({ secret: webhookListenSecrets.secret })
    .from(webhookListenSecrets)
    .where(
      and(
        eq(webhookListenSecrets.userId, userId),
        eq(webhookListenSecrets.organizationId, organizationId),
      ),
    );
  return row!.secret;
}
