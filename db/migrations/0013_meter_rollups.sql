CREATE TABLE "meter_customer_hourly" (
	"meter_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"customer_id" uuid,
	"external_customer_id" text,
	"event_count" bigint NOT NULL,
	"value_count" bigint NOT NULL,
	"sum" numeric NOT NULL,
	"min" numeric,
	"max" numeric,
	CONSTRAINT "meter_customer_hourly_key" UNIQUE NULLS NOT DISTINCT("meter_id","hour","customer_id","external_customer_id")
);
--> statement-breakpoint
CREATE TABLE "meter_hourly" (
	"meter_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"event_count" bigint NOT NULL,
	"value_count" bigint NOT NULL,
	"sum" numeric NOT NULL,
	"min" numeric,
	"max" numeric,
	CONSTRAINT "meter_hourly_meter_id_hour_pk" PRIMARY KEY("meter_id","hour")
);
--> statement-breakpoint
CREATE TABLE "meter_rollup_state" (
	"meter_id" uuid PRIMARY KEY NOT NULL,
	"filter" jsonb NOT NULL,
	"aggregation" jsonb NOT NULL,
	"through" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "ingest_xid" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL;--> statement-breakpoint
ALTER TABLE "meter_customer_hourly" ADD CONSTRAINT "meter_customer_hourly_meter_id_meters_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_hourly" ADD CONSTRAINT "meter_hourly_meter_id_meters_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_rollup_state" ADD CONSTRAINT "meter_rollup_state_meter_id_meters_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_customer_idx" ON "meter_customer_hourly" USING btree ("meter_id","customer_id","hour");--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_external_idx" ON "meter_customer_hourly" USING btree ("meter_id","external_customer_id","hour");--> statement-breakpoint
CREATE INDEX "events_ingest_xid_brin" ON "events" USING brin ("ingest_xid") WITH (pages_per_range=32,autosummarize=true);