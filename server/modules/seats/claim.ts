// Claiming a seat by its invitation token, with no other credential: the token is the secret. Reading
// the invitation has no side effect (mail scanners follow links); claiming uses the token up, so a
// second claim with it fails, and opens a customer session for the new holder.
import { inTransaction } from "../../../db/client.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { hashToken } from "../../lib/tokens.ts";
import { openBuyerSession } from "../customer-sessions/service.ts";
import { organizationSummary } from "../organizations/queries.ts";
import { InvalidInvitationToken } from "./errors.ts";
import { purchaseOfSeat } from "./purchase.ts";
import * as repo from "./repository.ts";
import type { SeatClaimInfoOut, SeatClaimResponseOut, SeatRow } from "./schemas.ts";
import { claimInTransaction, serializeSeat, type SeatDeps } from "./service.ts";

function claimable(seat: SeatRow | null, now: Date): seat is SeatRow {
  return (
    seat !== null &&
    seat.status === "pending" &&
    seat.invitationTokenExpiresAt !== null &&
    seat.invitationTokenExpiresAt > now
  );
}

export async function claimInfo(deps: SeatDeps, token: string): Promise<SeatClaimInfoOut> {
  const seat = await repo.seatByTokenHash(deps.db, hashToken(token), false);
  if (!claimable(seat, deps.clock.now())) throw new ResourceNotFound("Invitation not found.");
  const [p, organization] = await Promise.all([
    purchaseOfSeat(deps.db, seat),
    organizationSummary(deps.db, seat.organizationId),
  ]);
  return {
    product_name: p.productName,
    product_id: p.productId,
    organization_name: organization?.name ?? "",
    organization_slug: organization?.slug ?? "",
    customer_email: seat.email,
    can_claim: p.closed === null,
  };
}

export async function claimSeat(deps: SeatDeps, token: string): Promise<SeatClaimResponseOut> {
  const { row, sessionToken } = await inTransaction(deps.db, async (tx) => {
    const seat = await repo.seatByTokenHash(tx, hashToken(token), true);
    if (!claimable(seat, deps.clock.now()) || !seat.customerId) throw new InvalidInvitationToken();
    const p = await purchaseOfSeat(tx, seat);
    if (p.closed) throw new InvalidInvitationToken();
    const row = await claimInTransaction(tx, deps, seat, p);
    const sessionToken = await openBuyerSession(
      { db: tx, clock: deps.clock },
      row.organizationId,
      row.customerId!,
    );
    return { row, sessionToken };
  });
  return { seat: await serializeSeat(deps.db, row), customer_session_token: sessionToken };
}
