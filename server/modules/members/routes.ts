// /v1/members/ and a customer's members under /v1/customers/{id}/members and
// /v1/customers/external/{external_id}/members (the seller), and /v1/customer-portal/members (the
// customer, by its session token).
import type { Request, RequestHandler } from "express";
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { customerOf } from "../../lib/customer-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import * as portal from "./portal.ts";
import {
  customerMemberListQuery,
  memberCreate,
  memberListQuery,
  memberUpdate,
  portalMemberCreate,
  portalMemberUpdate,
} from "./schemas.ts";
import * as service from "./service.ts";
import type { CustomerRef, MemberDeps, MemberRef } from "./service.ts";

const byIdParams = z.object({ id: z.uuid(), member_id: z.uuid().optional() });
const byExternalParams = z.object({
  external_id: z.string().min(1),
  member_external_id: z.string().min(1).optional(),
});
const idParams = z.object({ id: z.uuid() });

type Refs = { customer: CustomerRef; member: MemberRef };
const byId = (req: Request): Refs => {
  const p = parseParams(byIdParams, req);
  return { customer: { id: p.id }, member: { id: p.member_id ?? "" } };
};
const byExternalId = (req: Request): Refs => {
  const p = parseParams(byExternalParams, req);
  return {
    customer: { externalId: p.external_id },
    member: { externalId: p.member_external_id ?? "" },
  };
};

export function membersRouter(
  deps: MemberDeps,
  guard: Guard,
  customerGuard: RequestHandler,
): Router {
  const r = apiRouter();
  const read = guard("members:read");
  const write = guard("members:write");
  r.get(["/members", "/members/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await service.listMembers(deps, authOf(req), parseQuery(memberListQuery, req), page));
  });
  for (const [prefix, member, refs] of [
    ["/customers/external/:external_id/members", ":member_external_id", byExternalId],
    ["/customers/:id/members", ":member_id", byId],
  ] as const) {
    r.get(prefix, read, async (req, res) => {
      const { customer } = refs(req);
      const query = parseQuery(customerMemberListQuery, req);
      const page = parseQuery(paginationQuery, req);
      res.json(await service.listCustomerMembers(deps, authOf(req), customer, query, page));
    });
    r.post(prefix, write, async (req, res) => {
      const { customer } = refs(req);
      const input = parseBody(memberCreate, req);
      res.status(201).json(await service.createMember(deps, authOf(req), customer, input));
    });
    r.get(`${prefix}/${member}`, read, async (req, res) => {
      const { customer, member } = refs(req);
      res.json(await service.getMember(deps, authOf(req), customer, member));
    });
    r.patch(`${prefix}/${member}`, write, async (req, res) => {
      const { customer, member } = refs(req);
      const input = parseBody(memberUpdate, req);
      res.json(await service.updateMember(deps, authOf(req), customer, member, input));
    });
    r.delete(`${prefix}/${member}`, write, async (req, res) => {
      const { customer, member } = refs(req);
      await service.deleteMember(deps, authOf(req), customer, member);
      res.status(204).end();
    });
  }

  const p = "/customer-portal/members";
  r.get([p, `${p}/`], customerGuard, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await portal.listMyMembers(deps, customerOf(req), page));
  });
  r.post([p, `${p}/`], customerGuard, async (req, res) => {
    const input = parseBody(portalMemberCreate, req);
    res.status(201).json(await portal.addMyMember(deps, customerOf(req), input));
  });
  r.patch(`${p}/:id`, customerGuard, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const input = parseBody(portalMemberUpdate, req);
    res.json(await portal.updateMyMember(deps, customerOf(req), id, input));
  });
  r.delete(`${p}/:id`, customerGuard, async (req, res) => {
    const { id } = parseParams(idParams, req);
    await portal.removeMyMember(deps, customerOf(req), id);
    res.status(204).end();
  });
  return r;
}
