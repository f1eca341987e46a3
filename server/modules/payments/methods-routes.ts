// A customer's saved payment methods as Polar lists them (PaymentMethodCard): for the seller
// (/v1/customers/{id}/payment-methods, by id or external id) and for the customer in the portal
// (/v1/customer-portal/customers/me/payment-methods: list, add, confirm after 3-D Secure, delete).
import type { RequestHandler, Response } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { customerOf, type CustomerContext } from "../../lib/customer-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { pageOf, paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { getCustomer } from "../customers/service.ts";
import {
  type AddedMethod,
  addCustomerPaymentMethod,
  confirmCustomerPaymentMethod,
  paymentMethodConfirm,
  paymentMethodCreate,
} from "./add-method.ts";
import type { PaymentProcessor } from "./processor.ts";
import { customerPaymentMethods } from "./queries.ts";
import { type PaymentMethodCreateResponseOut, paymentMethodOut } from "./schemas.ts";
import { type CardNeededBy, deleteCustomerPaymentMethod } from "./service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";

export function paymentMethodsRouter(
  deps: {
    db: Db;
    clock: Clock;
    processor: PaymentProcessor;
    /** A new default card: past-due subscriptions are charged again at once. */
    onNewDefault(customer: CustomerContext): Promise<unknown>;
    /** Which of the customer's subscriptions still need a card (the last one is kept for them). */
    cardNeededBy: CardNeededBy;
  },
  guard: Guard,
  customerGuard: RequestHandler,
): Router {
  const r = apiRouter();
  const read = guard("customers:read", "customers:write");
  const list = async (
    customer: { id: string; organization_id: string },
    page: z.output<typeof paginationQuery>,
  ) => {
    const all = await customerPaymentMethods(
      deps.db,
      scopeOfResource({ organizationId: customer.organization_id }),
      customer.id,
    );
    const start = (page.page - 1) * page.limit;
    return pageOf(all.slice(start, start + page.limit).map(paymentMethodOut), all.length, page);
  };
  r.get("/customers/external/:externalId/payment-methods", read, async (req, res) => {
    const { externalId } = parseParams(z.object({ externalId: z.string().min(1) }), req);
    const customer = await getCustomer(deps, authOf(req), { externalId });
    res.json(await list(customer, parseQuery(paginationQuery, req)));
  });
  r.get("/customers/:id/payment-methods", read, async (req, res) => {
    const { id } = parseParams(z.object({ id: z.uuid() }), req);
    const customer = await getCustomer(deps, authOf(req), { id });
    res.json(await list(customer, parseQuery(paginationQuery, req)));
  });

  const me = "/customer-portal/customers/me/payment-methods";
  const respond = async (res: Response, ctx: CustomerContext, added: AddedMethod) => {
    if (added.status === "requires_action") {
      const body: PaymentMethodCreateResponseOut = {
        status: "requires_action",
        client_secret: added.clientSecret,
      };
      res.status(201).json(body);
      return;
    }
    if (added.madeDefault) await deps.onNewDefault(ctx);
    const body: PaymentMethodCreateResponseOut = {
      status: "succeeded",
      payment_method: paymentMethodOut(added.method),
    };
    res.status(201).json(body);
  };
  r.get([me, `${me}/`], customerGuard, async (req, res) => {
    const ctx = customerOf(req);
    const page = parseQuery(paginationQuery, req);
    res.json(await list({ id: ctx.customerId, organization_id: ctx.organizationId }, page));
  });
  r.post([me, `${me}/`], customerGuard, async (req, res) => {
    const ctx = customerOf(req);
    const added = await addCustomerPaymentMethod(deps, ctx, parseBody(paymentMethodCreate, req));
    await respond(res, ctx, added);
  });
  r.post(`${me}/confirm`, customerGuard, async (req, res) => {
    const ctx = customerOf(req);
    const input = parseBody(paymentMethodConfirm, req);
    await respond(res, ctx, await confirmCustomerPaymentMethod(deps, ctx, input));
  });
  r.delete(`${me}/:id`, customerGuard, async (req, res) => {
    const ctx = customerOf(req);
    const { id } = parseParams(z.object({ id: z.uuid() }), req);
    if (!(await deleteCustomerPaymentMethod(deps, ctx, id, req.log)))
      throw new ResourceNotFound("Payment method not found.");
    res.status(204).end();
  });
  return r;
}
