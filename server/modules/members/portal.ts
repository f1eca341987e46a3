// The customer portal's view of members: a customer (by its session) manages its own team with the
// same rules as the seller, answered as Polar's portal answers them (400 for a broken rule). Adding
// an address already on the team returns that member, as Polar does.
import { inTransaction } from "../../../db/client.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import * as repo from "./repository.ts";
import { portalMemberOut, type PortalMemberCreate, type PortalMemberUpdate } from "./schemas.ts";
import {
  addMember,
  changeMember,
  guardUnique,
  loadMember,
  refuse,
  removeMember,
  type MemberDeps,
  type TeamOf,
} from "./service.ts";

// The session names a live customer (the guard checked it), so its team is the customer's.
const teamOf = (c: CustomerContext): TeamOf => ({
  id: c.customerId,
  organizationId: c.organizationId,
});

export async function listMyMembers(deps: MemberDeps, c: CustomerContext, page: Pagination) {
  const { rows, total } = await repo.membersOfCustomer(
    deps.db,
    scopeOfCustomer(c),
    c.customerId,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(portalMemberOut), total, page);
}

export async function addMyMember(deps: MemberDeps, c: CustomerContext, input: PortalMemberCreate) {
  if (input.role === "owner")
    refuse("portal", ["body", "role"], "A member cannot be added as owner: promote them after.");
  return guardUnique("portal", () =>
    inTransaction(deps.db, async (tx) => {
      const existing = await repo.findByEmail(tx, scopeOfCustomer(c), c.customerId, input.email);
      if (existing) return portalMemberOut(existing);
      const row = await addMember(
        tx,
        deps.clock,
        teamOf(c),
        { email: input.email, name: input.name, role: input.role },
        "portal",
      );
      return portalMemberOut(row);
    }),
  );
}

export async function updateMyMember(
  deps: MemberDeps,
  c: CustomerContext,
  id: string,
  input: PortalMemberUpdate,
) {
  return guardUnique("portal", () =>
    inTransaction(deps.db, async (tx) => {
      const current = await loadMember(tx, teamOf(c), { id });
      return portalMemberOut(
        await changeMember(tx, deps.clock, teamOf(c), current, input, "portal"),
      );
    }),
  );
}

export async function removeMyMember(
  deps: MemberDeps,
  c: CustomerContext,
  id: string,
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    await removeMember(tx, deps.clock, await loadMember(tx, teamOf(c), { id }), "portal");
  });
}
