// Seats of a seat-based purchase: assign one to a person (by email, customer or team member), who
// claims it through a single-use invitation link; revoke it; resend the invitation. A purchase never
// has more live (pending or claimed) seats than it bought: assignments to one purchase are
// serialized by a lock and counted inside it. Each change records its customer_seat.* event in its
// own transaction; the invitation mail is sent after the commit (a crash in between loses only the
// mail, and resend issues a new link).
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { type OrgScope, scopeOfCustomer, scopeOfResource } from "../../lib/org-scope.ts";
import { findBuyer, findCustomerForCheckout, resolveBuyer } from "../customers/buyers.ts";
import type { Mailer } from "../email/mailer.ts";
import { grantBenefitsForOrder, revokeBenefitsOfSeatHolder } from "../grants/service.ts";
import { memberOfTeam, memberOfTeamByEmail, membersByIds } from "../members/queries.ts";
import type { MemberRow } from "../members/schemas.ts";
import { addMember } from "../members/service.ts";
import { recordCustomerState } from "../subscriptions/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  CustomerNotFound,
  InvalidSeatAssignmentRequest,
  SeatAlreadyAssigned,
  SeatNotAvailable,
  SeatNotPending,
} from "./errors.ts";
import {
  assertSeatBased,
  purchaseOf,
  purchaseOfSeat,
  type PurchaseOfSeats,
  type PurchaseRef,
  type PurchaseScope,
} from "./purchase.ts";
import * as repo from "./repository.ts";
import {
  seatOut,
  type PortalSeatAssign,
  type SeatOut,
  type SeatRow,
  type SeatsListOut,
} from "./schemas.ts";

export interface SeatDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  queue: QueueHandle | null;
  mailer: Mailer | null;
}

/** As Polar: an invitation link works for a day. */
const INVITATION_TTL_MS = 24 * 60 * 60 * 1000;

export async function serializeSeat(db: Db, row: SeatRow): Promise<SeatOut> {
  const [member] = row.memberId ? await membersByIds(db, scopeOfResource(row), [row.memberId]) : [];
  return seatOut(row, member ?? null);
}

async function serializeSeats(db: Db, rows: SeatRow[]) {
  const ids = rows.map((r) => r.memberId).filter((m): m is string => m !== null);
  const members = new Map(
    (await membersByIds(db, scopeOfResource(...rows), ids)).map((m) => [m.id, m]),
  );
  return rows.map((r) => seatOut(r, r.memberId ? (members.get(r.memberId) ?? null) : null));
}

async function emit(tx: Tx, clock: Clock, type: string, row: SeatRow) {
  await recordEvent(tx, clock, {
    organizationId: row.organizationId,
    type,
    data: await serializeSeat(tx, row),
  });
}

export async function listSeats(
  deps: Pick<SeatDeps, "db">,
  scope: PurchaseScope,
  ref: { subscription_id?: string | null; order_id?: string | null },
): Promise<SeatsListOut> {
  const p = await purchaseOf(deps.db, scope, ref);
  const live = (await repo.seatsOfPurchase(deps.db, scopeOfResource(p), p.purchase)).filter(
    (s) => s.status !== "revoked",
  );
  return {
    seats: await serializeSeats(deps.db, live),
    available_seats: Math.max(0, p.seats - live.length),
    total_seats: p.seats,
  };
}

type HolderInput = Pick<
  PortalSeatAssign,
  "email" | "external_customer_id" | "customer_id" | "external_member_id" | "member_id"
>;

/** The person a seat goes to, as a customer of the organization (created for a new email). */
async function holderOf(
  tx: Tx,
  clock: Clock,
  p: PurchaseOfSeats,
  input: HolderInput,
): Promise<{ customerId: string; email: string; member: MemberRow | null }> {
  const given = [
    input.email,
    input.external_customer_id,
    input.customer_id,
    input.external_member_id,
    input.member_id,
  ].filter((v) => v !== null && v !== undefined);
  if (given.length !== 1)
    throw new InvalidSeatAssignmentRequest(
      "Exactly one of email, external_customer_id, customer_id, external_member_id or member_id must be provided.",
    );
  let email: string;
  let member: MemberRow | null = null;
  if (input.member_id || input.external_member_id) {
    member = await memberOfTeam(
      tx,
      scopeOfResource(p),
      p.billingCustomerId,
      input.member_id ? { id: input.member_id } : { externalId: input.external_member_id! },
    );
    if (!member) throw new ResourceNotFound("Member not found.");
    email = member.email;
  } else if (input.customer_id || input.external_customer_id) {
    const customer = await findCustomerForCheckout(tx, scopeOfResource(p), {
      id: input.customer_id ?? null,
      externalId: input.external_customer_id ?? null,
    });
    if (!customer) throw new CustomerNotFound(input.customer_id ?? input.external_customer_id!);
    return { customerId: customer.id, email: customer.email, member: null };
  } else {
    email = input.email!;
  }
  const existing = await findBuyer(tx, scopeOfResource(p), { id: null, externalId: null, email });
  const customer =
    existing ??
    (
      await resolveBuyer(tx, clock, p, {
        id: null,
        externalId: null,
        email,
        name: member?.name ?? null,
        billingAddress: null,
      })
    ).customer;
  return { customerId: customer.id, email: customer.email, member };
}

export interface Assignment extends HolderInput {
  metadata?: Record<string, unknown> | null;
  immediateClaim: boolean;
}

/** Assigns one seat of a purchase; returns it, with the invitation link when one was made. */
export async function assignSeat(
  deps: SeatDeps,
  scope: PurchaseScope,
  ref: PurchaseRef,
  input: Assignment,
) {
  const { row, token, purchase } = await inTransaction(deps.db, async (tx) => {
    await repo.lockPurchase(tx, (await purchaseOf(tx, scope, ref)).id);
    // Read under the lock: a seat decrease that committed while this waited for it counts.
    const p = await purchaseOf(tx, scope, ref);
    assertSeatBased(p);
    if (p.closed) throw new SeatNotAvailable(p.closed);
    if ((await repo.countLiveSeats(tx, scopeOfResource(p), p.purchase)) >= p.seats)
      throw new SeatNotAvailable();
    const holder = await holderOf(tx, deps.clock, p, input);
    if (await repo.liveSeatOfEmail(tx, scopeOfResource(p), p.purchase, holder.email))
      throw new SeatAlreadyAssigned(holder.email);
    const now = deps.clock.now();
    const token = input.immediateClaim ? null : newToken("till_seat_");
    let row = await repo.insertSeat(tx, {
      organizationId: p.organizationId,
      billingCustomerId: p.billingCustomerId,
      ...("subscriptionId" in p.purchase
        ? { subscriptionId: p.purchase.subscriptionId }
        : { orderId: p.purchase.orderId }),
      status: "pending",
      email: holder.email,
      customerId: holder.customerId,
      memberId: holder.member?.id ?? null,
      invitationTokenHash: token ? hashToken(token) : null,
      invitationTokenExpiresAt: token ? new Date(now.getTime() + INVITATION_TTL_MS) : null,
      seatMetadata: input.metadata ?? {},
      createdAt: now,
    });
    if (input.immediateClaim) row = await claimInTransaction(tx, deps, row, p);
    else await emit(tx, deps.clock, "customer_seat.assigned", row);
    return { row, token, purchase: p };
  });
  if (token) await sendInvitation(deps, row, token, purchase.productName);
  return serializeSeat(deps.db, row);
}

/**
 * The seat becomes its holder's: linked to a member of the buyer's team (added when new), the
 * product's benefits granted to the holder within this purchase, customer_seat.claimed recorded.
 * The buyer holding a seat already has the purchase's benefits, so nothing more is granted.
 */
export async function claimInTransaction(
  tx: Tx,
  deps: SeatDeps,
  seat: SeatRow,
  p: PurchaseOfSeats,
): Promise<SeatRow> {
  const team = { id: p.billingCustomerId, organizationId: p.organizationId };
  let memberId = seat.memberId;
  if (!memberId) {
    const member =
      (await memberOfTeamByEmail(tx, scopeOfResource(team), team.id, seat.email)) ??
      (await addMember(tx, deps.clock, team, { email: seat.email, role: "member" }, "seller"));
    memberId = member.id;
  }
  const now = deps.clock.now();
  const row = await repo.updateSeat(tx, seat.id, {
    status: "claimed",
    claimedAt: now,
    invitationTokenHash: null,
    memberId,
    modifiedAt: now,
  });
  if (row.customerId && row.customerId !== p.billingCustomerId) {
    await grantBenefitsForOrder(tx, deps, {
      organizationId: row.organizationId,
      id: row.orderId,
      customerId: row.customerId,
      productId: p.productId,
      subscriptionId: row.subscriptionId,
    });
    await recordCustomerState(tx, deps.clock, { ...row, customerId: row.customerId });
  }
  await emit(tx, deps.clock, "customer_seat.claimed", row);
  return row;
}

type SeatLocker = (tx: Tx, id: string) => Promise<SeatRow | null>;

/** Revokes a seat: its holder loses the benefits it gave; the seat is free for someone else. */
export async function revokeSeat(deps: SeatDeps, lock: SeatLocker, id: string) {
  const row = await inTransaction(deps.db, async (tx) => {
    const seat = await lock(tx, id);
    if (!seat) throw new ResourceNotFound("Seat not found.");
    if (seat.status === "revoked") return seat;
    if (
      seat.status === "claimed" &&
      seat.customerId &&
      seat.customerId !== seat.billingCustomerId
    ) {
      await revokeBenefitsOfSeatHolder(tx, deps, {
        organizationId: seat.organizationId,
        customerId: seat.customerId,
        purchaseId: seat.subscriptionId ?? seat.orderId!,
      });
      await recordCustomerState(tx, deps.clock, { ...seat, customerId: seat.customerId });
    }
    const now = deps.clock.now();
    const revoked = await repo.updateSeat(tx, seat.id, {
      status: "revoked",
      revokedAt: now,
      invitationTokenHash: null,
      customerId: null,
      memberId: null,
      modifiedAt: now,
    });
    await emit(tx, deps.clock, "customer_seat.revoked", revoked);
    return revoked;
  });
  return serializeSeat(deps.db, row);
}

/** Sends a pending seat's invitation again, with a new link (the old one stops working). */
export async function resendInvitation(deps: SeatDeps, lock: SeatLocker, id: string) {
  const { row, token } = await inTransaction(deps.db, async (tx) => {
    const seat = await lock(tx, id);
    if (!seat) throw new ResourceNotFound("Seat not found.");
    if (seat.status !== "pending") throw new SeatNotPending();
    const token = newToken("till_seat_");
    const now = deps.clock.now();
    const row = await repo.updateSeat(tx, seat.id, {
      invitationTokenHash: hashToken(token),
      invitationTokenExpiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      modifiedAt: now,
    });
    return { row, token };
  });
  const p = await purchaseOfSeat(deps.db, row);
  await sendInvitation(deps, row, token, p.productName);
  return serializeSeat(deps.db, row);
}

export function claimUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/portal/claim?invitation_token=${encodeURIComponent(token)}`;
}

async function sendInvitation(deps: SeatDeps, seat: SeatRow, token: string, productName: string) {
  await deps.mailer?.send({
    kind: "seat-invitation",
    to: seat.email,
    subject: `You have been given a seat for ${productName}`,
    text: `A seat for ${productName} is waiting for you. Claim it with the link below; it works for 24 hours.`,
    link: claimUrl(deps.baseUrl, token),
  });
}

// The seller's locks: a seat of the caller's organizations.
export const sellerSeat =
  (scope: OrgScope): SeatLocker =>
  (tx, id) =>
    repo.lockSeatOfOrganization(tx, scope, id);

// The portal's: a seat of a purchase the session's customer made.
export const buyerSeat =
  (c: CustomerContext): SeatLocker =>
  (tx, id) =>
    repo.lockSeatOfBuyer(tx, scopeOfCustomer(c), c.customerId, id);
