// /v1/customer-seats (the seller, and the public claim by invitation token) and
// /v1/customer-portal/seats (the buyer, by customer session). Assign and revoke answer 200 with the
// seat, as Polar does.
import type { RequestHandler } from "express";
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { customerOf } from "../../lib/customer-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { claimInfo, claimSeat } from "./claim.ts";
import * as portal from "./portal.ts";
import { portalSeatAssign, seatAssign, seatClaim, seatListQuery } from "./schemas.ts";
import {
  assignSeat,
  listSeats,
  resendInvitation,
  revokeSeat,
  sellerSeat,
  type SeatDeps,
} from "./service.ts";

const seatParams = z.object({ seat_id: z.uuid() });
const tokenParams = z.object({ invitation_token: z.string().min(1).max(200) });

export function seatsRouter(deps: SeatDeps, guard: Guard, customerGuard: RequestHandler): Router {
  const r = apiRouter();
  const read = guard("customer_seats:read");
  const write = guard("customer_seats:write");
  const s = "/customer-seats";

  r.get(`${s}/claim/:invitation_token`, async (req, res) => {
    res.json(await claimInfo(deps, parseParams(tokenParams, req).invitation_token));
  });
  r.post(`${s}/claim`, async (req, res) => {
    res.json(await claimSeat(deps, parseBody(seatClaim, req).invitation_token));
  });
  r.get([s, `${s}/`], read, async (req, res) => {
    const ctx = authOf(req);
    res.json(
      await listSeats(
        deps,
        { organizationIds: scopeOfCaller(ctx) },
        parseQuery(seatListQuery, req),
      ),
    );
  });
  r.post([s, `${s}/`], write, async (req, res) => {
    const { subscription_id, order_id, checkout_id, metadata, immediate_claim, ...holder } =
      parseBody(seatAssign, req);
    const seat = await assignSeat(
      deps,
      { organizationIds: scopeOfCaller(authOf(req)) },
      { subscription_id, order_id, checkout_id },
      { ...holder, metadata: metadata ?? null, immediateClaim: immediate_claim },
    );
    res.json(seat);
  });
  r.delete(`${s}/:seat_id`, write, async (req, res) => {
    const { seat_id } = parseParams(seatParams, req);
    res.json(await revokeSeat(deps, sellerSeat(scopeOfCaller(authOf(req))), seat_id));
  });
  r.post(`${s}/:seat_id/resend`, write, async (req, res) => {
    const { seat_id } = parseParams(seatParams, req);
    res.json(await resendInvitation(deps, sellerSeat(scopeOfCaller(authOf(req))), seat_id));
  });

  const p = "/customer-portal/seats";
  r.get(`${p}/subscriptions`, customerGuard, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await portal.listClaimedSubscriptions(deps, customerOf(req), page));
  });
  r.get([p, `${p}/`], customerGuard, async (req, res) => {
    res.json(await portal.listMySeats(deps, customerOf(req), parseQuery(seatListQuery, req)));
  });
  r.post([p, `${p}/`], customerGuard, async (req, res) => {
    res.json(await portal.assignMySeat(deps, customerOf(req), parseBody(portalSeatAssign, req)));
  });
  r.delete(`${p}/:seat_id`, customerGuard, async (req, res) => {
    const { seat_id } = parseParams(seatParams, req);
    res.json(await portal.revokeMySeat(deps, customerOf(req), seat_id));
  });
  r.post(`${p}/:seat_id/resend`, customerGuard, async (req, res) => {
    const { seat_id } = parseParams(seatParams, req);
    res.json(await portal.resendMyInvitation(deps, customerOf(req), seat_id));
  });
  return r;
}
