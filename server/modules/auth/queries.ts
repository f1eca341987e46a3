// The auth module's read API for other modules (no side effects).
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";

/** The user's platform role ("admin", "user"), null for an unknown user. */
export function userRole(db: Db, userId: string): Promise<string | null> {
  return repo.userRole(db, userId);
}

/** Who a user is, for consent screens and OpenID userinfo; null for an unknown user. */
export function userProfile(db: Db, userId: string) {
  return repo.userProfile(db, userId);
}
