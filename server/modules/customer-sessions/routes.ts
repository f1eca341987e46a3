// /v1/customer-sessions, and the portal's email change (customers/me/email-update/…), which ends in a
// new customer session.
import type { RequestHandler } from "express";
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { customerOf } from "../../lib/customer-context.ts";
import { parseBody, parseQuery } from "../../lib/validation.ts";
import {
  checkEmailUpdate,
  emailUpdateRequest,
  emailUpdateVerify,
  requestEmailUpdate,
  verifyEmailUpdate,
  type EmailUpdateDeps,
} from "./email-update.ts";
import { customerSessionCreate } from "./schemas.ts";
import * as service from "./service.ts";

export function customerSessionsRouter(deps: service.CustomerSessionDeps, guard: Guard): Router {
  const r = apiRouter();
  r.post(
    ["/customer-sessions", "/customer-sessions/"],
    guard("customer_sessions:write"),
    async (req, res) => {
      res
        .status(201)
        .json(
          await service.createCustomerSession(
            deps,
            authOf(req),
            parseBody(customerSessionCreate, req),
          ),
        );
    },
  );
  return r;
}

export function emailUpdateRouter(deps: EmailUpdateDeps, customerGuard: RequestHandler): Router {
  const r = apiRouter();
  const base = "/customer-portal/customers/me/email-update";
  r.post(`${base}/request`, customerGuard, async (req, res) => {
    const { email } = parseBody(emailUpdateRequest, req);
    await requestEmailUpdate(deps, customerOf(req), email);
    res.status(202).json({});
  });
  // The link's token is the credential: no session needed (it may open on another device).
  r.get(`${base}/check`, async (req, res) => {
    const { token } = parseQuery(z.object({ token: z.string().min(1).max(200) }), req);
    await checkEmailUpdate(deps, token);
    res.status(204).end();
  });
  r.post(`${base}/verify`, async (req, res) => {
    const { token } = parseBody(emailUpdateVerify, req);
    res.json({ token: await verifyEmailUpdate(deps, token) });
  });
  return r;
}
