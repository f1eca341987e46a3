// Shared pieces of the org-scope tests: a caller proving some organizations, the scope of one
// seller's organization, and the seller's rows made through the API.
import { expect } from "vitest";
import type { AuthContext } from "../../server/lib/auth-context.ts";
import { type OrgScope, scopeOfResource } from "../../server/lib/org-scope.ts";
import { api } from "./auth.ts";

/** A signed-in caller whose credential proves `organizationIds`. */
export const callerOf = (organizationIds: string[]): AuthContext => ({
  kind: "user",
  userId: null,
  organizationIds,
  scopes: new Set(),
  tokenId: null,
});

/** What an organization token of the test seller's organization with `scopes` proves. */
export const organizationCaller = (
  seller: { organization: { id: string } },
  scopes: string[],
): AuthContext => ({
  kind: "organization",
  userId: null,
  organizationIds: [seller.organization.id],
  scopes: new Set(scopes),
  tokenId: null,
});

/** The scope of the organization a test seller made. */
export const scopeOfSeller = (seller: { organization: { id: string } }): OrgScope =>
  scopeOfResource({ organizationId: seller.organization.id });

/** POSTs `body` with the token; the test fails unless the request succeeded. Answers the body. */
export async function created<T>(base: string, path: string, token: string, body: unknown) {
  const res = await api(base, path, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as T;
}
