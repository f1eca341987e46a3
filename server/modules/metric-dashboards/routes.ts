// /v1/metrics/dashboards: a seller's saved selections of metrics (a plain array, not paginated).
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import {
  metricDashboardCreate,
  metricDashboardListQuery,
  metricDashboardUpdate,
} from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function metricDashboardsRouter(deps: service.MetricDashboardDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("metrics:read", "metrics:write");
  const write = guard("metrics:write");
  r.get(["/metrics/dashboards", "/metrics/dashboards/"], read, async (req, res) => {
    const q = parseQuery(metricDashboardListQuery, req);
    res.json(await service.listDashboards(deps, authOf(req), q));
  });
  r.post(["/metrics/dashboards", "/metrics/dashboards/"], write, async (req, res) => {
    const body = parseBody(metricDashboardCreate, req);
    res.status(201).json(await service.createDashboard(deps, authOf(req), body));
  });
  r.get("/metrics/dashboards/:id", read, async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getDashboard(deps, authOf(req), id));
  });
  r.patch("/metrics/dashboards/:id", write, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(metricDashboardUpdate, req);
    res.json(await service.updateDashboard(deps, authOf(req), id, body));
  });
  r.delete("/metrics/dashboards/:id", write, async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteDashboard(deps, authOf(req), id);
    res.status(204).end();
  });
  return r;
}
