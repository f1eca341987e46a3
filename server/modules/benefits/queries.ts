// Reads of benefits for the modules below them (files), free of side effects: they import only
// the repository, so a lower module can ask without tying itself to the benefits' use cases.
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

/** Ids of the downloadables benefits in the scope offering this file. */
export function benefitsUsingFile(db: Db, scope: OrgScope, fileId: string) {
  return repo.downloadablesUsingFile(db, scope, fileId);
}
