// The migrated template every test database is cloned from: built once per `npm test` run, on
// PGlite (a data-dir tarball) or on PostgreSQL (a template database) when TEST_DATABASE_URL is set.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { migrate, openDb } from "../../db/client.ts";
import { migrateQueue } from "../../server/jobs/queue.ts";

export type TemplateInfo =
  | { kind: "pglite"; tarball: string }
  | {
      kind: "postgres";
      adminUrl: string;
      template: string;
      prefix: string;
      /** A transaction-mode PgBouncer in front of the same server: servers under test go through it. */
      poolerUrl?: string;
      /** Streaming replicas of the same server: servers under test read from them (DATABASE_READ_URL). */
      readUrls?: string[];
    };

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function buildTemplate(
  adminUrl: string | undefined,
  poolerUrl?: string,
  readUrls?: string[],
): Promise<TemplateInfo> {
  if (!adminUrl) {
    const database = await openDb({ kind: "pglite", dataDir: null });
    try {
      await migrate(database);
      await migrateQueue(database, null);
      const blob = await database.pglite!.dumpDataDir("none");
      const dir = mkdtempSync(path.join(os.tmpdir(), "till-test-"));
      const tarball = path.join(dir, "template.tar");
      writeFileSync(tarball, Buffer.from(await blob.arrayBuffer()));
      return { kind: "pglite", tarball };
    } finally {
      await database.close();
    }
  }
  const base = new URL(adminUrl).pathname.slice(1) || "postgres";
  const prefix = `${base}_t${process.pid}`;
  const template = `${prefix}_template`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${template}" with (force)`);
    await admin.unsafe(`create database "${template}"`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(adminUrl, template);
  const database = await openDb({ kind: "postgres", url, poolSize: 2 });
  try {
    await migrate(database);
    await migrateQueue(database, url);
  } finally {
    await database.close();
  }
  return {
    kind: "postgres",
    adminUrl,
    template,
    prefix,
    ...(poolerUrl ? { poolerUrl } : {}),
    ...(readUrls?.length ? { readUrls } : {}),
  };
}

/** Drops the template and any per-file database a crashed test left behind. */
export async function dropTemplate(info: TemplateInfo): Promise<void> {
  if (info.kind !== "postgres") return;
  const admin = postgres(info.adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin<
      { datname: string }[]
    >`select datname from pg_database where datname like ${`${info.prefix}%`}`;
    for (const { datname } of rows)
      await admin.unsafe(`drop database if exists "${datname}" with (force)`);
  } finally {
    await admin.end();
  }
}
