// Polar's official TypeScript client pointed at a test server, and a row counter for the
// "bad input changes nothing" checks.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { TestServer } from "./server.ts";

export function polarClient(t: TestServer, accessToken: string): Polar {
  return new Polar({ accessToken, serverURL: t.url });
}

/** Rows of a table, optionally of one organization, to show that a rejected request wrote nothing. */
export async function countRows(
  t: TestServer,
  table: "customers" | "events" | "meters" | "webhook_events",
  organizationId?: string,
): Promise<number> {
  const where = organizationId ? sql` where organization_id = ${organizationId}` : sql``;
  const [row] = await t.server.database.rows<{ n: number | string }>(
    sql`select count(*)::int as n from ${sql.identifier(table)}${where}`,
  );
  return Number(row!.n);
}
