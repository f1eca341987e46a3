// Members as other modules read them: one member of a customer's team, by id, external id or email.
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";
import type { MemberRow } from "./schemas.ts";

export function memberOfTeam(
  db: Db,
  customerId: string,
  by: { id: string } | { externalId: string },
): Promise<MemberRow | null> {
  return repo.findMember(db, customerId, by);
}

export function memberOfTeamByEmail(
  db: Db,
  customerId: string,
  email: string,
): Promise<MemberRow | null> {
  return repo.findByEmail(db, customerId, email);
}

export function membersByIds(db: Db, ids: string[]): Promise<MemberRow[]> {
  return repo.membersByIds(db, ids);
}
