// The operations around customers: seats of seat-based purchases (the seller's, the public claim
// and the customer portal's), members, customer sessions, and license keys' public validation.
import { z } from "zod";
import {
  portalSeatAssign,
  seatAssign,
  seatClaim,
  seatClaimInfoSchema,
  seatClaimResponseSchema,
  seatListQuery,
  seatSchema,
  seatsListSchema,
} from "../modules/seats/schemas.ts";
import type { Operation } from "./registry.ts";

const seatParams = z.object({ seat_id: z.uuid() });
const portal: Partial<Operation> = {
  auth: "customer_session",
  scopes: ["customer_portal:read", "customer_portal:write"],
};

function seatOperations(base: string, prefix: string, tag: string, extra: Partial<Operation>) {
  const ops: Operation[] = [
    {
      method: "get",
      path: base,
      operationId: `${prefix}:list_seats`,
      summary: "List seats",
      tag,
      query: [seatListQuery],
      response: seatsListSchema,
    },
    {
      method: "post",
      path: base,
      operationId: `${prefix}:assign_seat`,
      summary: "Assign seat",
      tag,
      body: prefix === "customer-seats" ? seatAssign : portalSeatAssign,
      response: seatSchema,
    },
    {
      method: "delete",
      path: `${base}/{seat_id}`,
      operationId: `${prefix}:revoke_seat`,
      summary: "Revoke seat",
      tag,
      params: seatParams,
      response: seatSchema,
    },
    {
      method: "post",
      path: `${base}/{seat_id}/resend`,
      operationId: `${prefix}:resend_invitation`,
      summary: "Resend invitation",
      tag,
      params: seatParams,
      response: seatSchema,
    },
  ];
  return ops.map((op) => ({ ...op, ...extra }));
}

export const customerOperations: readonly Operation[] = [
  ...seatOperations("/v1/customer-seats", "customer-seats", "customer-seats", {}).map((op) => ({
    ...op,
    scopes:
      op.method === "get"
        ? ["customer_seats:read", "customer_seats:write"]
        : ["customer_seats:write"],
  })),
  {
    method: "get",
    path: "/v1/customer-seats/claim/{invitation_token}",
    operationId: "customer-seats:get_claim_info",
    summary: "Get claim info",
    tag: "customer-seats",
    params: z.object({ invitation_token: z.string().min(1).max(200) }),
    response: seatClaimInfoSchema,
  },
  {
    method: "post",
    path: "/v1/customer-seats/claim",
    operationId: "customer-seats:claim_seat",
    summary: "Claim seat",
    tag: "customer-seats",
    body: seatClaim,
    response: seatClaimResponseSchema,
  },
  ...seatOperations(
    "/v1/customer-portal/seats",
    "customer_portal:seats",
    "customer_portal",
    portal,
  ),
];
