// GET /metrics in Prometheus's text format (prom-client): requests by route and status with
// latency histograms, queue depth per job, webhook deliveries by outcome, database pool use and
// Node's own figures (event-loop lag among them). Off unless METRICS_TOKEN is set, and then only
// for a bearer of that token, so it is never public by accident.
import { timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Router } from "express";
import { Router as router } from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Database } from "../../db/client.ts";
import type { QueueHandle } from "../jobs/queue.ts";
import { deliveryOutcomes, poolConnections } from "../modules/operations/repository.ts";
import type { Clock } from "./clock.ts";
import { Unauthorized } from "./errors.ts";

const DELIVERY_WINDOW_MS = 3600_000;

export interface Metrics {
  /** Counts and times every request (mount first). */
  observe: RequestHandler;
  /** Serves GET /metrics behind the token. */
  routes: Router;
}

/** The matched route's pattern (`/v1/products/:id`), never the raw path, to keep labels few. */
function routeOf(req: Request): string {
  let pattern = (req.route as { path?: unknown } | undefined)?.path;
  // A route on several paths (`["/products", "/products/"]`) is named by its first.
  if (Array.isArray(pattern)) pattern = pattern[0];
  if (typeof pattern !== "string") return "unmatched";
  // An error answered by the app's handler left the /v1 router, which reset req.baseUrl.
  const base = req.baseUrl || (/^\/v1(\/|$)/.test(req.originalUrl) ? "/v1" : "");
  return `${base}${pattern}`;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createMetrics(deps: {
  token: string;
  database: Database;
  queue: QueueHandle | null;
  clock: Clock;
  poolSize: number | null;
}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labels = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "till_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: labels,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "till_http_request_duration_seconds",
    help: "HTTP request latency, by method, route pattern and status",
    labelNames: labels,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: "till_queue_jobs",
    help: "Jobs in the queue by job name and state (ready, deferred, active, failed)",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (!deps.queue) return;
      for (const q of await deps.queue.boss.getQueues()) {
        this.set({ queue: q.name, state: "ready" }, q.readyCount);
        this.set({ queue: q.name, state: "deferred" }, q.deferredCount);
        this.set({ queue: q.name, state: "active" }, q.activeCount);
        this.set({ queue: q.name, state: "failed" }, q.failedCount);
      }
    },
  });
  new Gauge({
    name: "till_webhook_deliveries_last_hour",
    help: "Webhook deliveries (event x endpoint) created in the last hour, by outcome",
    labelNames: ["outcome"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const since = new Date(deps.clock.now().getTime() - DELIVERY_WINDOW_MS);
      for (const row of await deliveryOutcomes(deps.database.db, since))
        this.set({ outcome: row.status }, row.n);
    },
  });
  new Gauge({
    name: "till_db_pool_connections",
    help: "till's PostgreSQL connections by state (all its processes), and this pool's size (state=max)",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (deps.database.driver !== "postgres") return;
      if (deps.poolSize !== null) this.set({ state: "max" }, deps.poolSize);
      for (const row of await poolConnections(deps.database.db))
        this.set({ state: row.state }, row.n);
    },
  });

  if (deps.database.replicas.length > 0) {
    const replicas = () => deps.database.replicaStatus()?.replicas ?? [];
    new Gauge({
      name: "till_db_replica_lag_seconds",
      help: "How far each read replica is behind the primary, as this process measures it (DATABASE_READ_MAX_LAG_MS)",
      labelNames: ["replica"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const r of replicas())
          if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    new Gauge({
      name: "till_db_replica_up",
      help: "1 while reads go to the replica, 0 while it is skipped (unreachable lately, or lagging past the bound)",
      labelNames: ["replica"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const r of replicas()) this.set({ replica: r.name }, r.usable ? 1 : 0);
      },
    });
    new Counter({
      name: "till_db_replica_reads_total",
      help: "Reads sent to each read replica (a failed attempt included)",
      labelNames: ["replica"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const r of replicas()) this.inc({ replica: r.name }, r.reads);
      },
    });
    new Counter({
      name: "till_db_replica_reads_on_primary_total",
      help: "Reads meant for a read replica that ran on the primary (every replica down or lagging, or a conflict)",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(deps.database.replicaStatus()?.onPrimary ?? 0);
      },
    });
  }

  const observe: RequestHandler = (req, res, next) => {
    const end = latency.startTimer();
    res.on("finish", () => {
      const l = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
      requests.inc(l);
      end(l);
    });
    next();
  };

  const routes = router();
  routes.get("/metrics", async (req, res) => {
    if (!req.bearer || !sameSecret(req.bearer, deps.token)) throw new Unauthorized();
    res.set("content-type", registry.contentType).send(await registry.metrics());
  });
  return { observe, routes };
}
