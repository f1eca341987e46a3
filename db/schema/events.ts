// Usage events: append-only, written in batches by POST /v1/events/ingest and read by meters.
//
// Partitioned by month on `timestamp` (PARTITION BY RANGE, written by hand in migration 0032: drizzle
// cannot declare it). Partitions are named events_YYYY_MM (UTC months) and created ahead by the
// `events.ensure-partitions` job; a DEFAULT partition takes any other timestamp, so no event is ever
// rejected, and creating a month moves that month's rows out of it. The primary key is (id,
// timestamp) because every unique index of a partitioned table must hold the partition key; a read
// by id alone probes each partition's index. See docs/scaling.md.
//
// Indexes (partitioned: one per partition) are chosen for the reads that must stay fast as the
// table grows:
// - (organization_id, customer_id, timestamp): a meter read for one customer and period is one
//   index range scan. Ingest resolves external_customer_id to customer_id when the customer exists,
//   and creating a customer links its earlier events, so per-customer reads need no OR.
// - (organization_id, name, timestamp): organization-wide meter reads filter on the event name.
// - (organization_id, timestamp): event lists, newest first.
// - (organization_id, external_id) where external_id is set: parents named by external id. It cannot
//   be unique across partitions; deduplication is event_dedup's primary key instead.
//
// - ingest_xid: the (epoch-extended) id of the transaction that inserted the event. The meter rollup
//   job consumes events by ranges of it, below the oldest transaction still running, so an event
//   that commits late is never skipped; a BRIN index keeps that range read cheap for ingest.
import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { tstz } from "./columns.ts";

export type EventMetadata = Record<string, string | number | boolean | Record<string, unknown>>;

export const events = pgTable(
  "events",
  {
    id: uuid("id").notNull().default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    source: text("source").$type<"system" | "user">().notNull().default("user"),
    timestamp: tstz("timestamp").notNull(),
    ingestedAt: tstz("ingested_at").notNull().defaultNow(),
    customerId: uuid("customer_id"),
    externalCustomerId: text("external_customer_id"),
    memberId: uuid("member_id"),
    externalMemberId: text("external_member_id"),
    externalId: text("external_id"),
    parentId: uuid("parent_id"),
    metadata: jsonb("metadata").$type<EventMetadata>().notNull().default({}),
    ingestXid: bigint("ingest_xid", { mode: "number" })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.timestamp] }),
    index("events_org_external_id_idx")
      .on(t.organizationId, t.externalId)
      .where(sql`${t.externalId} is not null`),
    index("events_org_customer_ts_idx").on(t.organizationId, t.customerId, t.timestamp),
    index("events_org_external_customer_ts_idx").on(
      t.organizationId,
      t.externalCustomerId,
      t.timestamp,
    ),
    index("events_org_name_ts_idx").on(t.organizationId, t.name, t.timestamp),
    index("events_org_ts_idx").on(t.organizationId, t.timestamp),
    index("events_parent_idx").on(t.parentId).where(sql`${t.parentId} is not null`),
    // autosummarize: a filled block range is summarized by autovacuum; the rollup tick also
    // summarizes new ranges itself (PGlite has no autovacuum), so only the tail is ever unsummarized.
    index("events_ingest_xid_brin")
      .using("brin", t.ingestXid)
      .with({ pages_per_range: 32, autosummarize: true }),
  ],
);

/**
 * The external ids ingested per organization, unpartitioned so a retry is caught whatever its
 * timestamp (a retried event without one gets the server's clock). Ingest inserts here and into
 * events in one statement; only rows new here reach events. With EVENT_DEDUP_RETENTION_DAYS set, a
 * daily job deletes the ids claimed before that window (by `claimed_at`, which rows get in insert
 * order, so a BRIN index finds them at almost no cost to ingest).
 */
export const eventDedup = pgTable(
  "event_dedup",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    claimedAt: tstz("claimed_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.externalId] }),
    index("event_dedup_claimed_at_brin").using("brin", t.claimedAt),
  ],
);
