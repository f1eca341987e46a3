// All SQL of the seats module. Seats are read under an OrgScope: the seller's, the portal
// customer's (and through the buyer who owns the purchase), or the purchase's own; a claim finds
// its seat by the invitation token's hash only, the token being the credential.
import { and, asc, count, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { customerSeats } from "../../../db/schema/index.ts";
import type { SeatRow } from "./schemas.ts";

export type SeatInsert = typeof customerSeats.$inferInsert;

/** What a set of seats belongs to: a subscription, or a one-time order. */
export type Purchase = { subscriptionId: string } | { orderId: string };

const inScope = (scope: OrgScope) => inArray(customerSeats.organizationId, [...scope]);

/** The purchase's seats in the scope (an empty scope matches nothing). */
const ofPurchase = (scope: OrgScope, p: Purchase) =>
  and(
    inScope(scope),
    "subscriptionId" in p
      ? eq(customerSeats.subscriptionId, p.subscriptionId)
      : eq(customerSeats.orderId, p.orderId),
  );

/**
 * Serializes assignments to one purchase until the transaction ends, so two concurrent assigns
 * cannot both take the last free seat.
 */
export async function lockPurchase(tx: Tx, purchaseId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${purchaseId}, 0))`);
}

export async function countLiveSeats(db: Db, scope: OrgScope, p: Purchase): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(customerSeats)
    .where(and(ofPurchase(scope, p), ne(customerSeats.status, "revoked")));
  return row?.n ?? 0;
}

export async function liveSeatOfEmail(
  db: Db,
  scope: OrgScope,
  p: Purchase,
  email: string,
): Promise<SeatRow | null> {
  const [row] = await db
    .select()
    .from(customerSeats)
    .where(
      and(
        ofPurchase(scope, p),
        ne(customerSeats.status, "revoked"),
        sql`lower(${customerSeats.email}) = lower(${email})`,
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function seatsOfPurchase(db: Db, scope: OrgScope, p: Purchase): Promise<SeatRow[]> {
  return db
    .select()
    .from(customerSeats)
    .where(ofPurchase(scope, p))
    .orderBy(asc(customerSeats.createdAt), asc(customerSeats.id));
}

export async function insertSeat(db: Db, values: SeatInsert): Promise<SeatRow> {
  const [row] = await db.insert(customerSeats).values(values).returning();
  return row!;
}

export async function updateSeat(
  db: Db,
  id: string,
  values: Partial<SeatInsert>,
): Promise<SeatRow> {
  const [row] = await db
    .update(customerSeats)
    .set(values)
    .where(eq(customerSeats.id, id))
    .returning();
  return row!;
}

/** A seat in the scope, locked for a change. */
export async function lockSeatOfOrganization(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<SeatRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(customerSeats)
    .where(and(eq(customerSeats.id, id), inScope(scope)))
    .for("update");
  return row ?? null;
}

/** A seat of a purchase this customer made, locked for a change. */
export async function lockSeatOfBuyer(
  db: Db,
  scope: OrgScope,
  billingCustomerId: string,
  id: string,
): Promise<SeatRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(customerSeats)
    .where(
      and(
        eq(customerSeats.id, id),
        eq(customerSeats.billingCustomerId, billingCustomerId),
        inScope(scope),
      ),
    )
    .for("update");
  return row ?? null;
}

/** A seat by its invitation token's hash: the token is the credential, not a scope. */
export async function seatByTokenHash(
  db: Db,
  hash: string,
  lock: boolean,
): Promise<SeatRow | null> {
  const q = db
    .select()
    .from(customerSeats)
    .where(eq(customerSeats.invitationTokenHash, hash))
    .limit(1);
  const [row] = lock ? await q.for("update") : await q;
  return row ?? null;
}

/** The subscriptions on which this customer holds a claimed seat. */
export async function claimedSubscriptionIds(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<string[]> {
  if (scope.length === 0) return [];
  const rows = await db
    .selectDistinct({ id: customerSeats.subscriptionId })
    .from(customerSeats)
    .where(
      and(
        eq(customerSeats.customerId, customerId),
        inScope(scope),
        eq(customerSeats.status, "claimed"),
        sql`${customerSeats.subscriptionId} is not null`,
      ),
    );
  return rows.map((r) => r.id!);
}

/** Revokes every live seat of a subscription that has ended; returns the seats as revoked. */
export async function revokeLiveSeatsOfSubscription(
  tx: Tx,
  scope: OrgScope,
  subscriptionId: string,
  now: Date,
): Promise<SeatRow[]> {
  return tx
    .update(customerSeats)
    .set({
      status: "revoked",
      revokedAt: now,
      invitationTokenHash: null,
      customerId: null,
      memberId: null,
      modifiedAt: now,
    })
    .where(
      and(
        inScope(scope),
        eq(customerSeats.subscriptionId, subscriptionId),
        ne(customerSeats.status, "revoked"),
      ),
    )
    .returning();
}
