// Members: a customer's team. Email (case-insensitive) and external_id are unique per customer. A
// customer has at most one owner: promoting a member to owner moves ownership (the old owner becomes
// a billing manager), and the owner can be neither demoted nor removed — ownership must be given to
// someone else first. Every change records its member.* events in the same transaction.
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { MemberRole } from "../../../db/schema/index.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { uniqueViolation } from "../../lib/db-errors.ts";
import {
  BadRequest,
  RequestValidationError,
  ResourceAlreadyExists,
  ResourceNotFound,
} from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { getCustomer } from "../customers/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import {
  memberOut,
  type CustomerMemberListQuery,
  type MemberCreate,
  type MemberListQuery,
  type MemberRow,
  type MemberUpdate,
} from "./schemas.ts";

export interface MemberDeps {
  db: Db;
  clock: Clock;
}

export type CustomerRef = { id: string } | { externalId: string };
export type MemberRef = { id: string } | { externalId: string };

/** The customer whose team is changed, already scoped to the caller. */
export interface TeamOf {
  id: string;
  organizationId: string;
}

/**
 * Who asks: the seller's API answers a broken rule as a validation error on the field, the portal
 * as Polar's portal does, a 400.
 */
export type Surface = "seller" | "portal";

export function refuse(surface: Surface, loc: (string | number)[], msg: string): never {
  if (surface === "portal") throw new BadRequest(msg);
  throw RequestValidationError.field(loc, msg);
}

const DUPLICATE_EMAIL = "A member with this email address already exists for this customer.";
const DUPLICATE_EXTERNAL_ID = "A member with this external ID already exists for this customer.";

/** A race past the checks hits a unique index; answer it as the check would have. */
export async function guardUnique<T>(surface: Surface, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const constraint = uniqueViolation(err);
    if (constraint === "members_customer_email_uq")
      refuse(surface, ["body", "email"], DUPLICATE_EMAIL);
    if (constraint === "members_customer_external_id_uq")
      refuse(surface, ["body", "external_id"], DUPLICATE_EXTERNAL_ID);
    if (constraint === "members_customer_owner_uq")
      throw new ResourceAlreadyExists("The customer's owner changed meanwhile; try again.");
    throw err;
  }
}

async function teamOf(tx: Db, clock: Clock, ctx: AuthContext, ref: CustomerRef): Promise<TeamOf> {
  const customer = await getCustomer({ db: tx, clock }, ctx, ref);
  return { id: customer.id, organizationId: customer.organization_id };
}

export async function loadMember(tx: Db, team: TeamOf, ref: MemberRef): Promise<MemberRow> {
  const found = await repo.findMember(tx, scopeOfResource(team), team.id, ref);
  if (!found) throw new ResourceNotFound("Member not found.");
  return found;
}

async function emitted(tx: Tx, clock: Clock, type: string, row: MemberRow): Promise<void> {
  await recordEvent(tx, clock, { organizationId: row.organizationId, type, data: memberOut(row) });
}

/** Adds a member, in the caller's transaction; the email must be free within the team. */
export async function addMember(
  tx: Tx,
  clock: Clock,
  team: TeamOf,
  input: { email: string; name?: string | null; externalId?: string | null; role: MemberRole },
  surface: Surface,
): Promise<MemberRow> {
  if (await repo.findByEmail(tx, scopeOfResource(team), team.id, input.email))
    refuse(surface, ["body", "email"], DUPLICATE_EMAIL);
  if (
    input.externalId &&
    (await repo.findMember(tx, scopeOfResource(team), team.id, { externalId: input.externalId }))
  )
    refuse(surface, ["body", "external_id"], DUPLICATE_EXTERNAL_ID);
  const row = await repo.insertMember(tx, {
    organizationId: team.organizationId,
    customerId: team.id,
    email: input.email,
    name: input.name ?? null,
    externalId: input.externalId ?? null,
    role: input.role,
    createdAt: clock.now(),
  });
  await emitted(tx, clock, "member.created", row);
  return row;
}

/**
 * Changes a member's name, email or role, in the caller's transaction. Making a member the owner
 * first turns the current owner into a billing manager (the index allows one owner at a time).
 */
export async function changeMember(
  tx: Tx,
  clock: Clock,
  team: TeamOf,
  current: MemberRow,
  input: { name?: string | null; email?: string | null; role?: MemberRole | null },
  surface: Surface,
): Promise<MemberRow> {
  const now = clock.now();
  const values: Partial<MemberRow> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.email && input.email !== current.email) {
    if (await repo.findByEmail(tx, scopeOfResource(team), team.id, input.email, current.id))
      refuse(surface, ["body", "email"], DUPLICATE_EMAIL);
    values.email = input.email;
  }
  if (input.role && input.role !== current.role) {
    if (current.role === "owner")
      refuse(
        surface,
        ["body", "role"],
        "The owner cannot be demoted: make another member the owner instead.",
      );
    if (input.role === "owner") {
      const owner = await repo.findOwner(tx, scopeOfResource(team), team.id);
      if (owner) {
        const demoted = await repo.updateMember(tx, owner.id, {
          role: "billing_manager",
          modifiedAt: now,
        });
        await emitted(tx, clock, "member.updated", demoted);
      }
    }
    values.role = input.role;
  }
  const row = await repo.updateMember(tx, current.id, { ...values, modifiedAt: now });
  await emitted(tx, clock, "member.updated", row);
  return row;
}

/** Removes a member, in the caller's transaction; never the owner. */
export async function removeMember(
  tx: Tx,
  clock: Clock,
  current: MemberRow,
  surface: Surface,
  loc: (string | number)[] = ["path", "member_id"],
): Promise<void> {
  if (current.role === "owner")
    refuse(surface, loc, "The owner cannot be removed: make another member the owner first.");
  await repo.deleteMember(tx, current.id);
  await emitted(tx, clock, "member.deleted", current);
}

export async function listMembers(
  deps: MemberDeps,
  ctx: AuthContext,
  query: MemberListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listMembers(
    deps.db,
    scopeOfCaller(ctx),
    {
      customerId: query.customer_id,
      externalCustomerId: query.external_customer_id,
      role: query.role,
    },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(memberOut), total, page);
}

export async function listCustomerMembers(
  deps: MemberDeps,
  ctx: AuthContext,
  customer: CustomerRef,
  query: CustomerMemberListQuery,
  page: Pagination,
) {
  const team = await teamOf(deps.db, deps.clock, ctx, customer);
  const { rows, total } = await repo.listMembers(
    deps.db,
    scopeOfResource(team),
    { customerId: team.id, role: query.role },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(memberOut), total, page);
}

export async function createMember(
  deps: MemberDeps,
  ctx: AuthContext,
  customer: CustomerRef,
  input: MemberCreate,
) {
  return guardUnique("seller", () =>
    inTransaction(deps.db, async (tx) => {
      const team = await teamOf(tx, deps.clock, ctx, customer);
      const row = await addMember(
        tx,
        deps.clock,
        team,
        { email: input.email, name: input.name, externalId: input.external_id, role: input.role },
        "seller",
      );
      return memberOut(row);
    }),
  );
}

export async function getMember(
  deps: MemberDeps,
  ctx: AuthContext,
  customer: CustomerRef,
  member: MemberRef,
) {
  const team = await teamOf(deps.db, deps.clock, ctx, customer);
  return memberOut(await loadMember(deps.db, team, member));
}

export async function updateMember(
  deps: MemberDeps,
  ctx: AuthContext,
  customer: CustomerRef,
  member: MemberRef,
  input: MemberUpdate,
) {
  return guardUnique("seller", () =>
    inTransaction(deps.db, async (tx) => {
      const team = await teamOf(tx, deps.clock, ctx, customer);
      const current = await loadMember(tx, team, member);
      return memberOut(await changeMember(tx, deps.clock, team, current, input, "seller"));
    }),
  );
}

export async function deleteMember(
  deps: MemberDeps,
  ctx: AuthContext,
  customer: CustomerRef,
  member: MemberRef,
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const team = await teamOf(tx, deps.clock, ctx, customer);
    const loc = ["path", "externalId" in member ? "member_external_id" : "member_id"];
    await removeMember(tx, deps.clock, await loadMember(tx, team, member), "seller", loc);
  });
}
