// /v1/customer-portal: authenticated by a customer session token only (never a seller's token or
// cookie). Meters answer at Polar's `meters/` and at `customer-meters/`.
import type { RequestHandler } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { customerOf } from "../../lib/customer-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import {
  customerGrantListQuery,
  customerGrantUpdate,
  customerMeterListQuery,
} from "../grants/schemas.ts";
import {
  benefitIdQuery,
  portalCustomerUpdate,
  portalOrderListQuery,
  portalSubscriptionListQuery,
  portalSubscriptionUpdate,
} from "./schemas.ts";
import type { BillingDeps } from "../subscriptions/deps.ts";
import { confirmOrderPayment, orderConfirmPayment, orderPaymentStatus } from "./order-payments.ts";
import * as seams from "./seams.ts";
import * as service from "./service.ts";
import { customerWalletListQuery } from "../wallets/schemas.ts";
import { getCustomerWallet, listCustomerWallets } from "../wallets/service.ts";

const idParams = z.object({ id: z.uuid() });
const both = (path: string) => [path, `${path}/`];

export function customerPortalRouter(
  deps: service.PortalBillingDeps,
  customerGuard: RequestHandler,
): Router {
  const r = apiRouter();
  r.use("/customer-portal", customerGuard);
  const p = "/customer-portal";

  r.get(`${p}/customer-session/introspect`, async (req, res) => {
    res.json(await service.introspectSession(deps, customerOf(req)));
  });
  r.get(`${p}/customer-session/user`, async (req, res) => {
    res.json(await service.getSessionUser(deps, customerOf(req)));
  });
  r.get(`${p}/customers/me`, async (req, res) => {
    res.json(await service.getMe(deps, customerOf(req)));
  });
  r.patch(`${p}/customers/me`, async (req, res) => {
    res.json(await service.updateMe(deps, customerOf(req), parseBody(portalCustomerUpdate, req)));
  });

  r.get(both(`${p}/subscriptions`), async (req, res) => {
    res.json(
      await service.listMySubscriptions(
        deps,
        customerOf(req),
        parseQuery(portalSubscriptionListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get(`${p}/subscriptions/:id`, async (req, res) => {
    res.json(await service.getMySubscription(deps, customerOf(req), parseParams(idParams, req).id));
  });
  r.patch(`${p}/subscriptions/:id`, async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.updateMySubscription(
        deps,
        customerOf(req),
        id,
        parseBody(portalSubscriptionUpdate, req),
      ),
    );
  });
  r.delete(`${p}/subscriptions/:id`, async (req, res) => {
    res.json(
      await service.cancelMySubscription(deps, customerOf(req), parseParams(idParams, req).id),
    );
  });

  r.get(both(`${p}/orders`), async (req, res) => {
    res.json(
      await service.listMyOrders(
        deps,
        customerOf(req),
        parseQuery(portalOrderListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  const billing = () => {
    if (!deps.processor || !deps.tax)
      throw new Error("the portal's billing dependencies are missing");
    return deps as service.PortalDeps & BillingDeps;
  };
  r.get(`${p}/orders/:id/payment-status`, async (req, res) => {
    res.json(await orderPaymentStatus(billing(), customerOf(req), parseParams(idParams, req).id));
  });
  r.post(`${p}/orders/:id/confirm-payment`, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(orderConfirmPayment, req);
    res.json(await confirmOrderPayment(billing(), customerOf(req), id, body));
  });
  r.get(`${p}/orders/:id`, async (req, res) => {
    res.json(await service.getMyOrder(deps, customerOf(req), parseParams(idParams, req).id));
  });

  r.get(both(`${p}/benefit-grants`), async (req, res) => {
    res.json(
      await seams.listCustomerBenefitGrants(
        deps,
        customerOf(req),
        parseQuery(customerGrantListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get(`${p}/benefit-grants/:id`, async (req, res) => {
    res.json(
      await seams.getCustomerBenefitGrant(deps, customerOf(req), parseParams(idParams, req).id),
    );
  });
  r.patch(`${p}/benefit-grants/:id`, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(customerGrantUpdate, req);
    res.json(await seams.updateCustomerBenefitGrant(deps, customerOf(req), id, body));
  });
  r.get(both(`${p}/license-keys`), async (req, res) => {
    res.json(
      await seams.listCustomerLicenseKeys(
        deps,
        customerOf(req),
        parseQuery(benefitIdQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get(`${p}/license-keys/:id`, async (req, res) => {
    res.json(
      await seams.getCustomerLicenseKey(deps, customerOf(req), parseParams(idParams, req).id),
    );
  });
  r.get(both(`${p}/downloadables`), async (req, res) => {
    res.json(
      await seams.listCustomerDownloadables(
        deps,
        customerOf(req),
        parseQuery(benefitIdQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get([...both(`${p}/meters`), ...both(`${p}/customer-meters`)], async (req, res) => {
    res.json(
      await seams.listCustomerMeters(
        deps,
        customerOf(req),
        parseQuery(customerMeterListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get([`${p}/meters/:id`, `${p}/customer-meters/:id`], async (req, res) => {
    res.json(await seams.getCustomerMeter(deps, customerOf(req), parseParams(idParams, req).id));
  });
  r.get(both(`${p}/wallets`), async (req, res) => {
    const { sorting } = parseQuery(customerWalletListQuery, req);
    res.json(
      await listCustomerWallets(
        deps.db,
        customerOf(req),
        sorting,
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.get(`${p}/wallets/:id`, async (req, res) => {
    res.json(await getCustomerWallet(deps.db, customerOf(req), parseParams(idParams, req).id));
  });
  return r;
}
