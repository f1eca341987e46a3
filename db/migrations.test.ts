// Migrations on whichever driver this run uses (PGlite by default, PostgreSQL with TEST_DATABASE_URL).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  createDatabase,
  dropDatabase,
  openTestDatabase,
  type TestDatabase,
} from "../test/helpers/db.ts";
import { databaseUrl } from "../test/helpers/template.ts";
import { migrate, migrationsFolder, openDb, type Database } from "./client.ts";

const journal = JSON.parse(
  readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8"),
) as { entries: unknown[] };

async function appliedCount(database: Database): Promise<number> {
  const [row] = await database.rows<{ n: number }>(
    sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
  );
  return row!.n;
}

async function tableNames(database: Database): Promise<string[]> {
  const rows = await database.rows<{ name: string }>(
    sql`select table_schema || '.' || table_name as name from information_schema.tables where table_schema in ('public', 'pgboss') order by 1`,
  );
  return rows.map((r) => r.name);
}

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t.dispose());

describe("migrations", () => {
  it("the template carries every committed migration, till's tables and pg-boss's schema", async () => {
    expect(await appliedCount(t.database)).toBe(journal.entries.length);
    const names = await tableNames(t.database);
    expect(names).toContain("public.till_meta");
    expect(names).toContain("pgboss.job");
  });

  it("stores outbox payloads as json, lz4-compressed where the server has lz4", async () => {
    const columns = await t.database.rows<{ table: string; type: string; compression: string }>(
      sql`select attrelid::regclass::text as table, format_type(atttypid, atttypmod) as type,
            attcompression::text as compression
          from pg_attribute
          where attrelid in ('webhook_events'::regclass, 'webhook_endpoint_events'::regclass)
            and attname = 'payload'
          order by 1`,
    );
    const [server] = await t.database.rows<{ lz4: boolean }>(
      sql`select 'lz4' = any (enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
    );
    const compression = server!.lz4 ? "l" : "";
    expect(columns).toEqual([
      { table: "webhook_endpoint_events", type: "text", compression },
      { table: "webhook_events", type: "json", compression },
    ]);
  });

  it("migrate() is idempotent", async () => {
    await migrate(t.database);
    await migrate(t.database);
    expect(await appliedCount(t.database)).toBe(journal.entries.length);
  });

  it("applies every migration to an empty database", { timeout: 60_000 }, async () => {
    const info = inject("template");
    if (info.kind === "pglite") {
      const fresh = await openDb({ kind: "pglite", dataDir: null });
      try {
        await migrate(fresh);
        expect(await appliedCount(fresh)).toBe(journal.entries.length);
        expect(await tableNames(fresh)).toContain("public.till_meta");
      } finally {
        await fresh.close();
      }
      return;
    }
    const name = `${info.prefix}_${randomBytes(6).toString("hex")}`;
    await createDatabase(info.adminUrl, name);
    const url = databaseUrl(info.adminUrl, name);
    // Two servers starting at once: the advisory lock lets both finish without a duplicate apply.
    const a = await openDb({ kind: "postgres", url, poolSize: 2 });
    const b = await openDb({ kind: "postgres", url, poolSize: 2 });
    try {
      await Promise.all([migrate(a), migrate(b)]);
      expect(await appliedCount(a)).toBe(journal.entries.length);
      expect(await tableNames(a)).toContain("public.till_meta");
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(info.adminUrl, name);
    }
  });
});
