// Reads of benefits for the modules below them (files), free of side effects: they import only
// the repository, so a lower module can ask without tying itself to the benefits' use cases.
import type { Db } from "../../../db/client.ts";
import * as repo from "./repository.ts";

/** Ids of the organization's downloadables benefits offering this file. */
export function benefitsUsingFile(db: Db, organizationId: string, fileId: string) {
  return repo.downloadablesUsingFile(db, organizationId, fileId);
}
