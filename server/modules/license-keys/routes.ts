// /v1/license-keys (seller, organization or user token) and the public
// /v1/customer-portal/license-keys/validate|activate|deactivate (no auth, rate-limited per IP).
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { ipRateLimit } from "./rate-limit.ts";
import {
  licenseKeyActivate,
  licenseKeyDeactivate,
  licenseKeyListQuery,
  licenseKeyUpdate,
  licenseKeyValidate,
} from "./schemas.ts";
import * as service from "./service.ts";
import { activateLicenseKey, deactivateLicenseKey, validateLicenseKey } from "./validation.ts";

const idParams = z.object({ id: z.uuid() });
const activationParams = z.object({ id: z.uuid(), activation_id: z.uuid() });

export interface LicenseKeyRouterDeps extends service.LicenseKeyDeps {
  clock: Clock;
  rateLimitPerMinute: number;
  trustProxy: boolean;
}

export function licenseKeysRouter(deps: LicenseKeyRouterDeps, guard: Guard): Router {
  const r = apiRouter();
  // The caller's organizations narrowed by the body's: another organization's key is not found.
  const callerScope = (req: Parameters<typeof authOf>[0], organizationId: string) => ({
    scope: scopeOfCaller(authOf(req), organizationId),
  });
  r.get(["/license-keys", "/license-keys/"], guard("license_keys:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listLicenseKeys(deps, authOf(req), parseQuery(licenseKeyListQuery, req), page),
    );
  });
  r.post("/license-keys/validate", guard("license_keys:write"), async (req, res) => {
    const body = parseBody(licenseKeyValidate, req);
    res.json(await validateLicenseKey(deps, callerScope(req, body.organization_id), body));
  });
  r.post("/license-keys/activate", guard("license_keys:write"), async (req, res) => {
    const body = parseBody(licenseKeyActivate, req);
    res.json(await activateLicenseKey(deps, callerScope(req, body.organization_id), body));
  });
  r.post("/license-keys/deactivate", guard("license_keys:write"), async (req, res) => {
    const body = parseBody(licenseKeyDeactivate, req);
    await deactivateLicenseKey(deps, callerScope(req, body.organization_id), body);
    res.status(204).end();
  });
  r.get("/license-keys/:id", guard("license_keys:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getLicenseKey(deps, authOf(req), id));
  });
  r.patch("/license-keys/:id", guard("license_keys:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.updateLicenseKey(deps, authOf(req), id, parseBody(licenseKeyUpdate, req)),
    );
  });
  r.post("/license-keys/:id/rotate", guard("license_keys:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.rotateLicenseKey(deps, authOf(req), id));
  });
  r.get(
    "/license-keys/:id/activations/:activation_id",
    guard("license_keys:read"),
    async (req, res) => {
      const { id, activation_id } = parseParams(activationParams, req);
      res.json(await service.getActivation(deps, authOf(req), id, activation_id));
    },
  );

  const limited = ipRateLimit({
    perMinute: deps.rateLimitPerMinute,
    clock: deps.clock,
    trustProxy: deps.trustProxy,
  });
  r.post("/customer-portal/license-keys/validate", limited, async (req, res) => {
    res.json(await validateLicenseKey(deps, "key-holder", parseBody(licenseKeyValidate, req)));
  });
  r.post("/customer-portal/license-keys/activate", limited, async (req, res) => {
    res.json(await activateLicenseKey(deps, "key-holder", parseBody(licenseKeyActivate, req)));
  });
  r.post("/customer-portal/license-keys/deactivate", limited, async (req, res) => {
    await deactivateLicenseKey(deps, "key-holder", parseBody(licenseKeyDeactivate, req));
    res.status(204).end();
  });
  return r;
}
