// Usage events: append-only, written in batches by POST /v1/events/ingest and read by meters.
//
// Indexes are chosen for the reads that must stay fast as the table grows:
// - (organization_id, customer_id, timestamp): a meter read for one customer and period is one
//   index range scan. Ingest resolves external_customer_id to customer_id when the customer exists,
//   and creating a customer links its earlier events, so per-customer reads need no OR.
// - (organization_id, name, timestamp): organization-wide meter reads filter on the event name.
// - (organization_id, timestamp): event lists, newest first.
// - (organization_id, external_id) unique where external_id is set: deduplication by
//   ON CONFLICT DO NOTHING.
//
// - ingest_xid: the (epoch-extended) id of the transaction that inserted the event. The meter rollup
//   job consumes events by ranges of it, below the oldest transaction still running, so an event
//   that commits late is never skipped; a BRIN index keeps that range read cheap for ingest.
//
// Not partitioned (yet). A partitioned table needs the partition key (timestamp) in every unique
// index, which would turn dedup into (organization_id, external_id, timestamp): a retried event
// without a timestamp gets a new one and would no longer be caught. When the table is partitioned by
// month, dedup moves to a small unpartitioned event_dedup(organization_id, external_id) table
// written in the same statement. See docs/scaling.md.
import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { id, tstz } from "./columns.ts";

export type EventMetadata = Record<string, string | number | boolean | Record<string, unknown>>;

export const events = pgTable(
  "events",
  {
    id: id(),
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
    uniqueIndex("events_org_external_id_uq")
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
