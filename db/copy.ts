// COPY … TO STDOUT for bulk reads (the CSV exports): PostgreSQL streams finished rows as bytes, and
// the driver builds no row objects. COPY takes no bind parameters, so the statement's values are
// written into it as literals here, each escaped on its own.
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import { isDatabaseUnreachable, pgErrorCode } from "../server/lib/db-errors.ts";
import type { Database } from "./client.ts";
import { RECOVERY_CONFLICT } from "./replica.ts";

/** A string literal whatever `standard_conforming_strings` says: E'' with quote and backslash doubled. */
export function literal(value: string): string {
  return `E'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

const dialect = new PgDialect();
dialect.escapeString = literal;

/** The statement's text with every parameter written in as a literal. */
export function inlined(query: SQL): string {
  const { sql, params } = dialect.sqlToQuery(query.inlineParams());
  if (params.length > 0) throw new Error("a parameter could not be inlined");
  return sql;
}

const UNESCAPE: Record<string, string> = {
  "\\": "\\",
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
  v: "\v",
};

/** `buf` with every LF turned into `terminator`, by native searches and copies. */
function terminated(buf: Buffer, terminator: string): Buffer {
  if (terminator === "\n") return buf;
  const end = Buffer.from(terminator);
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, from)) {
    parts.push(buf.subarray(from, at), end);
    from = at + 1;
  }
  parts.push(buf.subarray(from));
  return Buffer.concat(parts);
}

/**
 * Runs `select` (one text column) through `COPY (…) TO STDOUT` in text format and answers its rows
 * as UTF-8 bytes, each row ended by `terminator`. Text format escapes a backslash, tab and line
 * break inside a value, so every raw LF in the output ends a row; the escapes, rare in practice,
 * are undone after (the only decode to a string).
 */
export async function copyRows(
  client: postgres.Sql,
  select: SQL,
  terminator: string,
): Promise<Buffer> {
  const stream = await client.unsafe(`copy (${inlined(select)}) to stdout`).readable();
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const rows = terminated(Buffer.concat(chunks), terminator);
  if (!rows.includes(0x5c)) return rows;
  return Buffer.from(rows.toString("utf8").replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c));
}

/** Runs a one-column select through COPY; answers its rows, each ended by `terminator`. */
export type CopyRows = (select: SQL, terminator: string) => Promise<Buffer>;

/**
 * COPY for the lag-tolerant reads: on the replica when there is one (rerun on the primary when the
 * replica cannot be reached or cancels it for replay), else on the pool; null on PGlite.
 */
export function copyOf(database: Database): CopyRows | null {
  const { client, replica } = database;
  if (!client) return null;
  if (!replica) return (select, terminator) => copyRows(client, select, terminator);
  return async (select, terminator) => {
    try {
      return await copyRows(replica, select, terminator);
    } catch (err) {
      if (!isDatabaseUnreachable(err) && !RECOVERY_CONFLICT.has(pgErrorCode(err) ?? "")) throw err;
      return copyRows(client, select, terminator);
    }
  };
}
