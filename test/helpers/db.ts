// A fresh migrated database for one test file: a PGlite clone of the template tarball, or a
// PostgreSQL database created from the template database.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { openDb, type Database } from "../../db/client.ts";
import { databaseUrl } from "./template.ts";

export interface TestDatabase {
  database: Database;
  /** The connection URL on PostgreSQL (the server itself, never a pooler); null on PGlite. */
  url: string | null;
  /**
   * How a till server reaches this database: DATABASE_URL (and DATABASE_DIRECT_URL past a pooler,
   * DATABASE_READ_URL with replicas).
   */
  env: Record<string, string>;
  /** Closes the connection and drops the database. */
  dispose(): Promise<void>;
}

export function usingPostgres(): boolean {
  return inject("template").kind === "postgres";
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const info = inject("template");
  if (info.kind === "pglite") {
    const tarball = new Blob([readFileSync(info.tarball)]);
    const database = await openDb({ kind: "pglite", dataDir: null }, { loadDataDir: tarball });
    return { database, url: null, env: {}, dispose: () => database.close() };
  }
  const name = `${info.prefix}_${randomBytes(6).toString("hex")}`;
  await createDatabase(info.adminUrl, name, info.template);
  const url = databaseUrl(info.adminUrl, name);
  const pooled = info.poolerUrl ? databaseUrl(info.poolerUrl, name) : null;
  const readUrls = (info.readUrls ?? []).map((u) => databaseUrl(u, name));
  const database = await openDb({
    kind: "postgres",
    url: pooled ?? url,
    ...(pooled ? { directUrl: url } : {}),
    ...(readUrls.length > 0 ? { readUrls } : {}),
    poolSize: 5,
  });
  return {
    database,
    url,
    env: {
      DATABASE_URL: pooled ?? url,
      ...(pooled ? { DATABASE_DIRECT_URL: url } : {}),
      ...(readUrls.length > 0 ? { DATABASE_READ_URL: readUrls.join(",") } : {}),
    },
    async dispose() {
      await database.close();
      await dropDatabase(info.adminUrl, name);
    },
  };
}

export async function createDatabase(
  adminUrl: string,
  name: string,
  template?: string,
): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ""}`);
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * Takes an access exclusive lock on `tables` in a transaction of `sql`, so a statement reading them
 * waits there; answers the function that commits it, letting the waiting statements go on.
 */
export async function holdTableLock(
  sql: postgres.Sql,
  tables: string,
): Promise<() => Promise<void>> {
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  let locked = () => {};
  const isLocked = new Promise<void>((r) => (locked = r));
  const holding = sql.begin(async (tx) => {
    await tx.unsafe(`lock table ${tables} in access exclusive mode`);
    locked();
    await released;
  });
  await Promise.race([isLocked, holding]);
  return async () => {
    release();
    await holding;
  };
}
