// /v1/sandbox/clock: show, advance and reset an organization's sandbox clock. Sandbox mode only;
// in production the paths do not exist (404).
import type { RequestHandler } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { parseBody, parseQuery } from "../../lib/validation.ts";
import { clockAdvance, clockQuery, clockReset } from "./schemas.ts";
import * as service from "./service.ts";

export function sandboxClockRouter(
  deps: service.SandboxClockDeps & { mode: "sandbox" | "production" },
  guard: Guard,
): Router {
  const r = apiRouter();
  const sandboxOnly: RequestHandler = (_req, _res, next) => {
    if (deps.mode !== "sandbox")
      throw new ResourceNotFound("The sandbox clock is not available in production mode.");
    next();
  };
  r.get("/sandbox/clock", sandboxOnly, guard("subscriptions:read"), async (req, res) => {
    res.json(
      await service.showClock(deps, authOf(req), parseQuery(clockQuery, req).organization_id),
    );
  });
  r.post("/sandbox/clock/advance", sandboxOnly, guard("subscriptions:write"), async (req, res) => {
    res.json(await service.advanceClock(deps, authOf(req), parseBody(clockAdvance, req)));
  });
  r.post("/sandbox/clock/reset", sandboxOnly, guard("subscriptions:write"), async (req, res) => {
    res.json(
      await service.resetClock(deps, authOf(req), parseBody(clockReset, req).organization_id),
    );
  });
  return r;
}
