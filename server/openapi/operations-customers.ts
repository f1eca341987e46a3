// The operations around customers: seats of seat-based purchases (the seller's, the public claim
// and the customer portal's), members, customer sessions, and license keys' public validation.
import { z } from "zod";
import {
  customerSessionCreate,
  customerSessionSchema,
} from "../modules/customer-sessions/schemas.ts";
import {
  activationReadSchema,
  licenseKeyActivate,
  licenseKeyDeactivate,
  licenseKeyValidate,
  validatedLicenseKeySchema,
} from "../modules/license-keys/schemas.ts";
import {
  customerMemberListQuery,
  memberCreate,
  memberListQuery,
  memberSchema,
  memberUpdate,
  portalMemberCreate,
  portalMemberSchema,
  portalMemberUpdate,
} from "../modules/members/schemas.ts";
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
import { idParams, type Operation } from "./registry.ts";

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

const memberRead = ["members:read", "members:write"];
const memberWrite = ["members:write"];

/** A customer's members, by the customer's id or external id (Polar has both). */
function customerMemberOperations(external: boolean): Operation[] {
  const base = external
    ? "/v1/customers/external/{external_id}/members"
    : "/v1/customers/{id}/members";
  const item = `${base}/${external ? "{member_external_id}" : "{member_id}"}`;
  const suffix = external ? "_external" : "";
  const params = external
    ? z.object({ external_id: z.string().min(1) })
    : z.object({ id: z.uuid() });
  const itemParams = external
    ? params.extend({ member_external_id: z.string().min(1) })
    : params.extend({ member_id: z.uuid() });
  const tag = "customers";
  return [
    {
      method: "get",
      path: base,
      operationId: `customers:members:list${suffix}`,
      summary: "List customer members",
      tag,
      scopes: memberRead,
      params,
      query: [customerMemberListQuery],
      list: memberSchema,
    },
    {
      method: "post",
      path: base,
      operationId: `customers:members:create${suffix}`,
      summary: "Create member",
      tag,
      scopes: memberWrite,
      params,
      body: memberCreate,
      response: memberSchema,
      status: 201,
    },
    {
      method: "get",
      path: item,
      operationId: `customers:members:get${suffix}`,
      summary: "Get member",
      tag,
      scopes: memberRead,
      params: itemParams,
      response: memberSchema,
    },
    {
      method: "patch",
      path: item,
      operationId: `customers:members:update${suffix}`,
      summary: "Update member",
      tag,
      scopes: memberWrite,
      params: itemParams,
      body: memberUpdate,
      response: memberSchema,
    },
    {
      method: "delete",
      path: item,
      operationId: `customers:members:delete${suffix}`,
      summary: "Delete member",
      tag,
      scopes: memberWrite,
      params: itemParams,
      status: 204,
    },
  ];
}

const portalMemberOperations: Operation[] = [
  {
    method: "get",
    path: "/v1/customer-portal/members",
    operationId: "customer_portal:members:list_members",
    summary: "List members",
    tag: "customer_portal",
    list: portalMemberSchema,
  },
  {
    method: "post",
    path: "/v1/customer-portal/members",
    operationId: "customer_portal:members:add_member",
    summary: "Add member",
    tag: "customer_portal",
    body: portalMemberCreate,
    response: portalMemberSchema,
    status: 201,
  },
  {
    method: "patch",
    path: "/v1/customer-portal/members/{id}",
    operationId: "customer_portal:members:update_member",
    summary: "Update member",
    tag: "customer_portal",
    params: idParams,
    body: portalMemberUpdate,
    response: portalMemberSchema,
  },
  {
    method: "delete",
    path: "/v1/customer-portal/members/{id}",
    operationId: "customer_portal:members:remove_member",
    summary: "Remove member",
    tag: "customer_portal",
    params: idParams,
    status: 204,
  },
];

/** Validate and activate, for the seller (a token) and for the software itself (public). */
const licenseKeyOperations: Operation[] = (
  ["license_keys", "customer_portal:license_keys"] as const
)
  .flatMap((prefix) => {
    const base =
      prefix === "license_keys" ? "/v1/license-keys" : "/v1/customer-portal/license-keys";
    const extra = prefix === "license_keys" ? { scopes: ["license_keys:write"] } : {};
    const tag = prefix === "license_keys" ? "license_keys" : "customer_portal";
    const ops: Operation[] = [
      {
        method: "post",
        path: `${base}/validate`,
        operationId: `${prefix}:validate`,
        summary: "Validate license key",
        tag,
        body: licenseKeyValidate,
        response: validatedLicenseKeySchema,
        ...extra,
      },
      {
        method: "post",
        path: `${base}/activate`,
        operationId: `${prefix}:activate`,
        summary: "Activate license key",
        tag,
        body: licenseKeyActivate,
        response: activationReadSchema,
        ...extra,
      },
    ];
    if (prefix !== "license_keys")
      ops.push({
        method: "post",
        path: `${base}/deactivate`,
        operationId: `${prefix}:deactivate`,
        summary: "Deactivate license key",
        tag,
        body: licenseKeyDeactivate,
        status: 204,
      });
    return ops;
  })
  .concat({
    method: "get",
    path: "/v1/license-keys/{id}/activations/{activation_id}",
    operationId: "license_keys:get_activation",
    summary: "Get activation",
    tag: "license_keys",
    scopes: ["license_keys:read", "license_keys:write"],
    params: z.object({ id: z.uuid(), activation_id: z.uuid() }),
    response: activationReadSchema,
  });

export const customerOperations: readonly Operation[] = [
  ...licenseKeyOperations,
  {
    method: "get",
    path: "/v1/members/",
    operationId: "members:list_members",
    summary: "List members",
    tag: "members",
    scopes: memberRead,
    query: [memberListQuery],
    list: memberSchema,
  },
  ...customerMemberOperations(false),
  ...customerMemberOperations(true),
  ...portalMemberOperations.map((op) => ({ ...op, ...portal })),
  {
    method: "post",
    path: "/v1/customer-sessions/",
    operationId: "customer-sessions:create",
    summary: "Create customer session",
    tag: "customer-sessions",
    scopes: ["customer_sessions:write"],
    body: customerSessionCreate,
    response: customerSessionSchema,
    status: 201,
  },
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
