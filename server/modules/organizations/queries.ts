// The organizations module's read API for other modules (no side effects).
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";

/** The ids of the organizations `userId` is a member of, oldest membership first. */
export function memberOrganizationIds(db: Db, userId: string): Promise<string[]> {
  return repo.memberOrganizationIds(db, userId);
}
