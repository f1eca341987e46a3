// createApp(deps): the whole HTTP surface as one Express app with no globals, so tests and
// benchmarks build exactly what production runs. Order matters: request id and logging first, then
// bearer parsing, routes that need the raw body (auth), the JSON parser, the API, and errors last.
import express, { Router, type Express } from "express";
import type { Database } from "../db/client.ts";
import type { Config } from "./config.ts";
import { healthRouter } from "./health.ts";
import type { QueueHandle } from "./jobs/queue.ts";
import { createGuard } from "./lib/auth-context.ts";
import { bearerToken } from "./lib/bearer.ts";
import type { Clock } from "./lib/clock.ts";
import { errorHandler, notFoundHandler } from "./lib/errors.ts";
import type { Logger } from "./lib/logger.ts";
import { requestContext } from "./lib/request-context.ts";
import type { Auth } from "./modules/auth/auth.ts";
import { createAuthResolver } from "./modules/auth/context.ts";
import { authRouter } from "./modules/auth/routes.ts";
import { organizationsRouter } from "./modules/organizations/routes.ts";
import { tokensRouter } from "./modules/tokens/routes.ts";
import type { WebhooksRuntime } from "./modules/webhooks/jobs.ts";
import { webhooksRouter } from "./modules/webhooks/routes.ts";

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  log: Logger;
  clock: Clock;
  queue: QueueHandle | null;
  auth: Auth;
  webhooks: WebhooksRuntime;
}

export function createApp(deps: AppDeps): Express {
  const { db } = deps.database;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  app.use(requestContext(deps.log));
  app.use(bearerToken);
  app.use(authRouter(deps.auth, { trustProxy: deps.config.auth.trustProxy }));
  app.use(express.json({ limit: "1mb" }));
  app.use(healthRouter(deps.database));

  const guard = createGuard(createAuthResolver({ auth: deps.auth, db, clock: deps.clock }));
  const v1 = Router();
  v1.use(organizationsRouter({ db, clock: deps.clock, auth: deps.auth }, guard));
  v1.use(tokensRouter({ db, clock: deps.clock }, guard));
  v1.use(webhooksRouter({ db, clock: deps.clock, config: deps.config, queue: deps.queue }, deps.webhooks, guard));
  app.use("/v1", v1);

  app.use(notFoundHandler);
  app.use(errorHandler());
  return app;
}
