-- events becomes partitioned by month on "timestamp" (see docs/scaling.md). The old table is renamed,
-- the partitioned one created with the same columns and indexes (partitioned indexes), monthly
-- partitions created for the months present (from 2000 on) and the next two, a DEFAULT partition
-- for any other timestamp, then every row is copied (this rewrites the table) and the old one dropped.
-- Dedup moves to event_dedup: a partitioned table cannot hold a unique index without "timestamp".
ALTER TABLE "events" RENAME TO "events_old";--> statement-breakpoint
DROP INDEX "events_org_external_id_uq";--> statement-breakpoint
DROP INDEX "events_org_customer_ts_idx";--> statement-breakpoint
DROP INDEX "events_org_external_customer_ts_idx";--> statement-breakpoint
DROP INDEX "events_org_name_ts_idx";--> statement-breakpoint
DROP INDEX "events_org_ts_idx";--> statement-breakpoint
DROP INDEX "events_parent_idx";--> statement-breakpoint
DROP INDEX "events_ingest_xid_brin";--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source" text DEFAULT 'user' NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"customer_id" uuid,
	"external_customer_id" text,
	"member_id" uuid,
	"external_member_id" text,
	"external_id" text,
	"parent_id" uuid,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ingest_xid" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL,
	CONSTRAINT "events_id_timestamp_pk" PRIMARY KEY("id","timestamp")
) PARTITION BY RANGE ("timestamp");
--> statement-breakpoint
CREATE TABLE "event_dedup" (
	"organization_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	CONSTRAINT "event_dedup_organization_id_external_id_pk" PRIMARY KEY("organization_id","external_id")
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_dedup" ADD CONSTRAINT "event_dedup_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_org_external_id_idx" ON "events" USING btree ("organization_id","external_id") WHERE "events"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "events_org_customer_ts_idx" ON "events" USING btree ("organization_id","customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_external_customer_ts_idx" ON "events" USING btree ("organization_id","external_customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_name_ts_idx" ON "events" USING btree ("organization_id","name","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_ts_idx" ON "events" USING btree ("organization_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_parent_idx" ON "events" USING btree ("parent_id") WHERE "events"."parent_id" is not null;--> statement-breakpoint
CREATE INDEX "events_ingest_xid_brin" ON "events" USING brin ("ingest_xid") WITH (pages_per_range=32,autosummarize=true);--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
-- Months in UTC, computed on timestamps without time zone so the session's zone plays no part.
DO $$
DECLARE
  m timestamp;
BEGIN
  FOR m IN
    SELECT date_trunc('month', "timestamp" AT TIME ZONE 'UTC') FROM "events_old"
    WHERE "timestamp" >= '2000-01-01T00:00:00Z'
      AND "timestamp" < ((date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months') AT TIME ZONE 'UTC')
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => k) FROM generate_series(0, 2) AS k
  LOOP
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF "events" FOR VALUES FROM (%L) TO (%L)',
      'events_' || to_char(m, 'YYYY_MM'),
      to_char(m, 'YYYY-MM-DD') || ' 00:00:00+00',
      to_char(m + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00'
    );
  END LOOP;
END
$$;--> statement-breakpoint
INSERT INTO "events" ("id", "organization_id", "name", "source", "timestamp", "ingested_at", "customer_id",
  "external_customer_id", "member_id", "external_member_id", "external_id", "parent_id", "metadata", "ingest_xid")
SELECT "id", "organization_id", "name", "source", "timestamp", "ingested_at", "customer_id",
  "external_customer_id", "member_id", "external_member_id", "external_id", "parent_id", "metadata", "ingest_xid"
FROM "events_old";--> statement-breakpoint
INSERT INTO "event_dedup" ("organization_id", "external_id")
SELECT DISTINCT "organization_id", "external_id" FROM "events_old" WHERE "external_id" IS NOT NULL;--> statement-breakpoint
DROP TABLE "events_old";
