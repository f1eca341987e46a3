// /v1/checkouts (seller, with a token) and /v1/checkouts/client/{client_secret} (the page, public,
// with its status stream).
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { bySecret, getClientCheckout, updateCheckout, updateClientCheckout } from "./public.ts";
import { confirmCheckout } from "./confirm.ts";
import {
  checkoutConfirm,
  checkoutCreate,
  checkoutListQuery,
  checkoutUpdate,
  checkoutUpdatePublic,
} from "./schemas.ts";
import * as service from "./service.ts";
import { streamStatus, type StatusStreamDeps } from "./stream.ts";

const idParams = z.object({ id: z.uuid() });
const secretParams = z.object({ client_secret: z.string().min(1).max(200) });

export function checkoutsRouter(
  deps: service.CheckoutDeps,
  guard: Guard,
  live: Omit<StatusStreamDeps, "db">,
): Router {
  const r = apiRouter();
  r.get(["/checkouts", "/checkouts/"], guard("checkouts:read"), async (req, res) => {
    res.json(
      await service.listCheckouts(
        deps,
        authOf(req),
        parseQuery(checkoutListQuery, req),
        parseQuery(paginationQuery, req),
      ),
    );
  });
  r.post(["/checkouts", "/checkouts/"], guard("checkouts:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createCheckout(deps, authOf(req), parseBody(checkoutCreate, req)));
  });
  r.get("/checkouts/client/:client_secret", async (req, res) => {
    res.json(await getClientCheckout(deps, parseParams(secretParams, req).client_secret));
  });
  r.patch("/checkouts/client/:client_secret", async (req, res) => {
    res.json(
      await updateClientCheckout(
        deps,
        parseParams(secretParams, req).client_secret,
        parseBody(checkoutUpdatePublic, req),
      ),
    );
  });
  r.get("/checkouts/client/:client_secret/stream", async (req, res) => {
    streamStatus(
      { db: deps.db, ...live },
      req,
      res,
      await bySecret(deps, parseParams(secretParams, req).client_secret),
    );
  });
  r.post("/checkouts/client/:client_secret/confirm", async (req, res) => {
    res.json(
      await confirmCheckout(
        deps,
        parseParams(secretParams, req).client_secret,
        parseBody(checkoutConfirm, req),
      ),
    );
  });
  r.get("/checkouts/:id", guard("checkouts:read"), async (req, res) => {
    res.json(await service.getCheckout(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.patch("/checkouts/:id", guard("checkouts:write"), async (req, res) => {
    res.json(
      await updateCheckout(
        deps,
        authOf(req),
        parseParams(idParams, req).id,
        parseBody(checkoutUpdate, req),
      ),
    );
  });
  return r;
}
