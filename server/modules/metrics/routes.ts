// /v1/metrics: Polar's metrics over a date range (GET /v1/metrics/, as CSV at /export) and limits.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { parseQuery } from "../../lib/validation.ts";
import { metricsQuery } from "./schemas.ts";
import { exportMetrics, getLimits, getMetrics, type MetricsDeps } from "./service.ts";

export function metricsRouter(deps: MetricsDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("metrics:read");
  r.get(["/metrics", "/metrics/"], read, async (req, res) => {
    res.json(await getMetrics(deps, authOf(req), parseQuery(metricsQuery, req)));
  });
  r.get(["/metrics/export", "/metrics/export/"], read, async (req, res) => {
    const csv = await exportMetrics(deps, authOf(req), parseQuery(metricsQuery, req));
    res.setHeader("content-disposition", 'attachment; filename="metrics.csv"');
    res.type("text/csv").send(csv);
  });
  r.get(["/metrics/limits", "/metrics/limits/"], read, async (req, res) => {
    res.json(await getLimits(deps, authOf(req)));
  });
  return r;
}
