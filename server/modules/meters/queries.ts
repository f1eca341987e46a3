// The meters module's read API for other modules (no side effects): they never import its SQL.
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";

export type { MeterRow } from "./repository.ts";

/** The meter with `id` when one of `organizationIds` owns it, else null. */
export function findMeter(
  db: Db,
  organizationIds: readonly string[],
  id: string,
): Promise<repo.MeterRow | null> {
  return repo.findMeter(db, organizationIds, id);
}
