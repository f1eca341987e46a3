// Members as other modules read them: one member of a customer's team, by id, external id or email,
// under the scope of the row that names the team.
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import type { MemberRow } from "./schemas.ts";

export function memberOfTeam(
  db: Db,
  scope: OrgScope,
  customerId: string,
  by: { id: string } | { externalId: string },
): Promise<MemberRow | null> {
  return repo.findMember(db, scope, customerId, by);
}

export function memberOfTeamByEmail(
  db: Db,
  scope: OrgScope,
  customerId: string,
  email: string,
): Promise<MemberRow | null> {
  return repo.findByEmail(db, scope, customerId, email);
}

export function membersByIds(db: Db, scope: OrgScope, ids: string[]): Promise<MemberRow[]> {
  return repo.membersByIds(db, scope, ids);
}
