// Shared pieces of the org-scope tests: a caller proving some organizations, and the scope of one
// seller's organization.
import type { AuthContext } from "../../server/lib/auth-context.ts";
import { type OrgScope, scopeOfResource } from "../../server/lib/org-scope.ts";

/** A signed-in caller whose credential proves `organizationIds`. */
export const callerOf = (organizationIds: string[]): AuthContext => ({
  kind: "user",
  userId: null,
  organizationIds,
  scopes: new Set(),
  tokenId: null,
});

/** The scope of the organization a test seller made. */
export const scopeOfSeller = (seller: { organization: { id: string } }): OrgScope =>
  scopeOfResource({ organizationId: seller.organization.id });
