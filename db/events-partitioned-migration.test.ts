// Migration 0032 on a table of events as it stood before (unpartitioned, unique external ids), on
// whichever driver this run uses: every row is kept with its id and ingest_xid, months present get
// their partitions and the rest the DEFAULT one, and event_dedup holds the external ids.
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { migrationsFolder } from "./client.ts";

const ORG = "00000000-0000-4000-8000-000000000001";
let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t.dispose());

/** The events table as migrations 0006 and 0013 left it. */
const before = [
  `drop table events, event_dedup`,
  `create table events (
     id uuid primary key default gen_random_uuid() not null, organization_id uuid not null
       references organization(id) on delete cascade,
     name text not null, source text default 'user' not null, timestamp timestamptz not null,
     ingested_at timestamptz default now() not null, customer_id uuid, external_customer_id text,
     member_id uuid, external_member_id text, external_id text, parent_id uuid,
     metadata jsonb default '{}'::jsonb not null,
     ingest_xid bigint default (pg_current_xact_id()::text)::bigint not null)`,
  `create unique index events_org_external_id_uq on events (organization_id, external_id) where external_id is not null`,
  `create index events_org_customer_ts_idx on events (organization_id, customer_id, timestamp)`,
  `create index events_org_external_customer_ts_idx on events (organization_id, external_customer_id, timestamp)`,
  `create index events_org_name_ts_idx on events (organization_id, name, timestamp)`,
  `create index events_org_ts_idx on events (organization_id, timestamp)`,
  `create index events_parent_idx on events (parent_id) where parent_id is not null`,
  `create index events_ingest_xid_brin on events using brin (ingest_xid) with (pages_per_range = 32, autosummarize = true)`,
];

it("0032 turns an existing events table into monthly partitions without losing a row", async () => {
  const { db } = t.database;
  for (const statement of before) await db.execute(sql.raw(statement));
  await db.execute(
    sql`insert into organization (id, name, slug, created_at) values (${ORG}, 'o', 'o-migration', now())`,
  );
  await db.execute(sql`insert into events (organization_id, name, timestamp, external_id, ingest_xid)
    values (${ORG}, 'a', '2025-01-31T23:59:59Z', 'x1', 11), (${ORG}, 'b', '2025-02-01T00:00:00Z', null, 12),
           (${ORG}, 'c', '2025-02-14T00:00:00Z', 'x2', 13), (${ORG}, 'd', '1990-05-01T00:00:00Z', 'x3', 14),
           (${ORG}, 'e', '2999-01-01T00:00:00Z', null, 15)`);
  const old = await t.database.rows<{ id: string; name: string; ingest_xid: string }>(
    sql`select id, name, ingest_xid::text from events order by name`,
  );

  const file = readFileSync(path.join(migrationsFolder, "0032_events_partitioned.sql"), "utf8");
  for (const statement of file.split("--> statement-breakpoint")) {
    await db.execute(sql.raw(statement));
  }

  const [kind] = await t.database.rows<{ relkind: string }>(
    sql`select relkind::text from pg_class where oid = 'events'::regclass`,
  );
  expect(kind!.relkind).toBe("p");
  expect(
    await t.database.rows(
      sql`select name, tableoid::regclass::text as part from events order by name`,
    ),
  ).toEqual([
    { name: "a", part: "events_2025_01" },
    { name: "b", part: "events_2025_02" },
    { name: "c", part: "events_2025_02" },
    { name: "d", part: "events_default" },
    { name: "e", part: "events_default" },
  ]);
  expect(
    await t.database.rows(sql`select id, name, ingest_xid::text from events order by name`),
  ).toEqual(old);
  expect(
    await t.database.rows(sql`select external_id from event_dedup order by external_id`),
  ).toEqual([{ external_id: "x1" }, { external_id: "x2" }, { external_id: "x3" }]);
  const [gone] = await t.database.rows<{ old: string | null }>(
    sql`select to_regclass('events_old')::text as old`,
  );
  expect(gone!.old).toBeNull();
  // The partitioned indexes are all there, the BRIN one included.
  const indexes = await t.database.rows<{ name: string }>(
    sql`select indexrelid::regclass::text as name from pg_index where indrelid = 'events'::regclass order by 1`,
  );
  expect(indexes.map((i) => i.name)).toEqual([
    "events_id_timestamp_pk",
    "events_ingest_xid_brin",
    "events_org_customer_ts_idx",
    "events_org_external_customer_ts_idx",
    "events_org_external_id_idx",
    "events_org_name_ts_idx",
    "events_org_ts_idx",
    "events_parent_idx",
  ]);
});
