// createApp(deps): the whole HTTP surface as one Express app with no globals, so tests and
// benchmarks build exactly what production runs. Order matters: request id and logging first, then
// bearer parsing, routes that need the raw body (auth), the JSON parser, the API, and errors last.
import express, { type Express } from "express";
import type { Database } from "../db/client.ts";
import type { Config } from "./config.ts";
import { healthRouter } from "./health.ts";
import type { QueueHandle } from "./jobs/queue.ts";
import { authOf, createGuard } from "./lib/auth-context.ts";
import { scopeOfCaller } from "./lib/org-scope.ts";
import { bearerToken } from "./lib/bearer.ts";
import type { Clock } from "./lib/clock.ts";
import { errorHandler, notFoundHandler } from "./lib/errors.ts";
import type { Logger } from "./lib/logger.ts";
import { requestContext } from "./lib/request-context.ts";
import type { SecretBox } from "./lib/secret-box.ts";
import { segmentRouter } from "./lib/segment-router.ts";
import { jsonBodies, storableInput, storableQuery } from "./lib/safe-input.ts";
import { apiCors } from "./lib/cors.ts";
import { createMetrics } from "./lib/metrics.ts";
import { idempotency } from "./lib/idempotency.ts";
import { hashToken } from "./lib/tokens.ts";
import { securityHeaders } from "./lib/security-headers.ts";
import { bySecret } from "./modules/checkouts/public.ts";
import { buyRouter, checkoutLinksRouter } from "./modules/checkout-links/routes.ts";
import { createCustomerGuard, customerOf } from "./lib/customer-context.ts";
import { demoRouter } from "./demo/routes.ts";
import type { DemoSeed } from "./demo/seed.ts";
import { customerPortalPublicRouter } from "./modules/customer-portal/public.ts";
import { customerPortalRouter } from "./modules/customer-portal/routes.ts";
import { customerSessionsRouter, emailUpdateRouter } from "./modules/customer-sessions/routes.ts";
import { createCustomerResolver } from "./modules/customer-sessions/service.ts";
import { checkoutsRouter } from "./modules/checkouts/routes.ts";
import { grantsRouter } from "./modules/grants/routes.ts";
import { licenseKeysRouter } from "./modules/license-keys/routes.ts";
import { draftOrdersRouter } from "./modules/draft-orders/routes.ts";
import { ordersRouter } from "./modules/orders/routes.ts";
import { refundsRouter } from "./modules/refunds/routes.ts";
import type { CheckoutDeps } from "./modules/checkouts/service.ts";
import type { PaymentProcessor } from "./modules/payments/processor.ts";
import { createStripeClient } from "./modules/payments/stripe/client.ts";
import { stripeWebhookRouter } from "./modules/stripe-webhooks/routes.ts";
import { disputesRouter } from "./modules/disputes/routes.ts";
import { invoicesRouter } from "./modules/invoices/routes.ts";
import { getOrder } from "./modules/orders/service.ts";
import { getMyOrder } from "./modules/customer-portal/service.ts";
import { subscriptionsRouter } from "./modules/subscriptions/routes.ts";
import type { TaxCalculator } from "./modules/tax/calculator.ts";
import type { Auth } from "./modules/auth/auth.ts";
import { createAuthResolver } from "./modules/auth/context.ts";
import { accountRouter } from "./modules/auth/account-routes.ts";
import { authRouter } from "./modules/auth/routes.ts";
import { benefitsRouter } from "./modules/benefits/routes.ts";
import { customFieldsRouter } from "./modules/custom-fields/routes.ts";
import { discountsRouter } from "./modules/discounts/routes.ts";
import { filesRouter, storageRouter } from "./modules/files/routes.ts";
import { fileDeps } from "./modules/files/service.ts";
import { customersRouter } from "./modules/customers/routes.ts";
import { membersRouter } from "./modules/members/routes.ts";
import { seatsRouter } from "./modules/seats/routes.ts";
import { customerMetersRouter } from "./modules/customer-meters/routes.ts";
import { eventsRouter } from "./modules/events/routes.ts";
import { metricsRouter } from "./modules/metrics/routes.ts";
import { metricDashboardsRouter } from "./modules/metric-dashboards/routes.ts";
import { eventTypesRouter } from "./modules/event-types/routes.ts";
import { exportsRouter } from "./modules/exports/routes.ts";
import { metersRouter } from "./modules/meters/routes.ts";
import { organizationsRouter } from "./modules/organizations/routes.ts";
import { paymentMethodsRouter } from "./modules/payments/methods-routes.ts";
import { paymentsRouter, sandboxRouter } from "./modules/payments/routes.ts";
import { sandboxClockRouter } from "./modules/sandbox-clock/routes.ts";
import { retryPastDueOfCustomer } from "./modules/subscriptions/dunning.ts";
import { subscriptionsNeedingCard } from "./modules/subscriptions/queries.ts";
import type { Mailer } from "./modules/email/mailer.ts";
import { sandboxEmailsRouter } from "./modules/email/routes.ts";
import { productsRouter } from "./modules/products/routes.ts";
import { tokensRouter } from "./modules/tokens/routes.ts";
import { oauth2PageRouter, oauth2Router } from "./modules/oauth2/routes.ts";
import { compressResponses, webRouter } from "./web.ts";
import { openApiRouters } from "./openapi/routes.ts";
import type { WebhooksRuntime } from "./modules/webhooks/jobs.ts";
import { webhooksRouter } from "./modules/webhooks/routes.ts";
import { RequestLogHub, recordRequests } from "./modules/request-log/hub.ts";
import { requestLogRouter } from "./modules/request-log/routes.ts";

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  log: Logger;
  clock: Clock;
  queue: QueueHandle | null;
  auth: Auth;
  secretBox: SecretBox;
  tax: TaxCalculator;
  processor: PaymentProcessor;
  /** Dunning emails; null where no mail goes out (benchmarks). */
  mailer?: Mailer | null;
  webhooks: WebhooksRuntime;
  /** The demo store's seller being seeded, when the demo is on (`till dev`). */
  demo?: Promise<DemoSeed> | null;
}

export function createApp(deps: AppDeps): Express {
  // `read` is a replica when DATABASE_READ_URL names one: only the deps that say so get it.
  const { db, read } = deps.database;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  app.use(requestContext(deps.log));
  const metrics = deps.config.metricsToken
    ? createMetrics({
        token: deps.config.metricsToken,
        database: deps.database,
        queue: deps.queue,
        clock: deps.clock,
        poolSize: deps.config.database.kind === "postgres" ? deps.config.database.poolSize : null,
      })
    : null;
  if (metrics) app.use(metrics.observe);
  app.use(
    securityHeaders({
      production: deps.config.mode === "production",
      stripe: deps.config.payments.stripe,
    }),
  );
  app.use(compressResponses());
  app.use(bearerToken);
  // Before the auth routes too: better-auth reads its query strings straight into queries.
  app.use(storableQuery);
  app.use(
    authRouter(deps.auth, {
      trustProxy: deps.config.auth.trustProxy,
      baseUrl: deps.config.baseUrl,
    }),
  );
  if (deps.demo)
    app.use(
      demoRouter({
        db,
        baseUrl: deps.config.baseUrl,
        authSecret: deps.config.authSecret,
        seed: deps.demo,
      }),
    );
  const files = fileDeps(deps.config, db, deps.clock);
  app.use(storageRouter(files));
  const stripe = deps.config.payments.stripe;
  const disputeDeps = {
    db,
    clock: deps.clock,
    baseUrl: deps.config.baseUrl,
    queue: deps.queue,
    processor: deps.processor,
  };
  if (stripe)
    app.use(
      stripeWebhookRouter({
        checkout: checkoutDepsOf(deps),
        disputes: disputeDeps,
        stripe: createStripeClient(stripe),
        secret: stripe.webhookSecret,
        log: deps.log,
      }),
    );
  app.use(express.json({ limit: "1mb" }));
  app.use(storableInput);
  app.use(healthRouter(deps.database, deps.config.mode));
  if (metrics) app.use(metrics.routes);
  app.use(
    accountRouter(deps.auth, {
      trustedOrigins: deps.config.trustedOrigins,
      socialProviders: deps.config.auth.socialProviders.map((p) => p.id),
      disableSignUp: deps.config.auth.disableSignUp,
      sandbox: deps.config.mode === "sandbox",
      stripe: deps.config.payments.stripe
        ? {
            publishable_key: deps.config.payments.stripe.publishableKey,
            stripe_js_url: deps.config.payments.stripe.jsUrl,
          }
        : null,
    }),
  );

  const resolveAuth = createAuthResolver({ auth: deps.auth, db, clock: deps.clock });
  const guard = createGuard(resolveAuth);
  const oauth2 = {
    db,
    clock: deps.clock,
    secretBox: deps.secretBox,
    baseUrl: deps.config.baseUrl,
  };
  // Idempotency keys belong to the organization (access token), the user (session) or the customer
  // session that sends them.
  const idempotentWrites = idempotency({
    db,
    clock: deps.clock,
    async scopeOf(req) {
      if (req.bearer?.startsWith("till_cst_")) return `customer ${hashToken(req.bearer)}`;
      req.auth ??= (await resolveAuth(req)) ?? undefined;
      if (!req.auth) return null;
      return req.auth.kind === "organization"
        ? `organization ${req.auth.organizationIds[0]}`
        : `user ${req.auth.userId}`;
    },
  });
  const customerGuard = createCustomerGuard(createCustomerResolver({ db, clock: deps.clock }));
  const checkoutDeps = checkoutDepsOf(deps);
  const billing = {
    db,
    clock: deps.clock,
    baseUrl: deps.config.baseUrl,
    queue: deps.queue,
    processor: deps.processor,
    tax: deps.tax,
    mailer: deps.mailer ?? null,
    retryDays: deps.config.dunningRetryDays,
  };
  const downloads = { files, ttlSeconds: deps.config.grants.downloadUrlTtlSeconds };
  const requestLog = new RequestLogHub(deps.database.direct);
  // Every instance hears the others' tails from the start (PostgreSQL); on failure, at the first tail.
  requestLog.listen().catch(() => {});
  // Dispatched on the first path segment (lib/segment-router.ts); order still decides within one.
  const openApi = openApiRouters(deps.config.baseUrl);
  const v1 = segmentRouter([
    openApi.api,
    requestLogRouter({ hub: requestLog, streams: deps.webhooks.streams }, guard),
    // Literal paths (`/customers/export`) before the routers whose `/:id` would take them.
    exportsRouter({ db: read }, guard),
    organizationsRouter({ db, clock: deps.clock, auth: deps.auth, config: deps.config }, guard),
    tokensRouter({ db, clock: deps.clock }, guard),
    oauth2Router(oauth2, guard),
    sandboxRouter({ db, clock: deps.clock, mode: deps.config.mode }),
    paymentsRouter({ db }, guard),
    disputesRouter(disputeDeps, guard),
    paymentMethodsRouter(
      {
        db,
        clock: deps.clock,
        processor: deps.processor,
        onNewDefault: (customer) => retryPastDueOfCustomer(billing, customer),
        cardNeededBy: subscriptionsNeedingCard,
      },
      guard,
      customerGuard,
    ),
    sandboxClockRouter(
      {
        ...billing,
        checkouts: checkoutDeps,
        mode: deps.config.mode,
        advanceSeconds: deps.config.sandboxClockAdvanceSeconds,
      },
      guard,
    ),
    sandboxEmailsRouter({ db, mode: deps.config.mode, authSecret: deps.config.authSecret }, guard),
    productsRouter(
      { db, clock: deps.clock, baseUrl: deps.config.baseUrl, queue: deps.queue },
      guard,
    ),
    benefitsRouter(
      { db, clock: deps.clock, secret: deps.config.authSecret, queue: deps.queue },
      guard,
    ),
    customFieldsRouter({ db, clock: deps.clock }, guard),
    discountsRouter({ db, clock: deps.clock }, guard),
    filesRouter(files, guard),
    customersRouter({ db, clock: deps.clock, queue: deps.queue }, guard),
    membersRouter({ db, clock: deps.clock }, guard, customerGuard),
    eventsRouter({ db, read, clock: deps.clock, sandbox: deps.config.mode === "sandbox" }, guard),
    eventTypesRouter({ db, clock: deps.clock }, guard),
    metersRouter({ db, read, clock: deps.clock }, guard),
    metricDashboardsRouter({ db, clock: deps.clock }, guard),
    metricsRouter({ db, read }, guard),
    customerMetersRouter({ read }, guard),
    checkoutsRouter(checkoutDeps, guard, {
      hub: deps.webhooks.hub,
      streams: deps.webhooks.streams,
    }),
    checkoutLinksRouter(checkoutDeps, guard),
    draftOrdersRouter(
      { ...billing, reconcileAfterSeconds: deps.config.payments.reconcileAfterSeconds },
      guard,
    ),
    ordersRouter({ db, baseUrl: deps.config.baseUrl }, guard),
    subscriptionsRouter(billing, guard),
    webhooksRouter(
      { db, clock: deps.clock, config: deps.config, queue: deps.queue },
      deps.webhooks,
      guard,
    ),
    refundsRouter(
      {
        db,
        clock: deps.clock,
        processor: deps.processor,
        queue: deps.queue,
        baseUrl: deps.config.baseUrl,
      },
      guard,
    ),
    grantsRouter(downloads, guard),
    // Public license-key routes (/customer-portal/license-keys/...) before the portal's customer guard.
    licenseKeysRouter(
      {
        db,
        clock: deps.clock,
        rateLimitPerMinute: deps.config.licenseKeyRateLimit,
        trustProxy: deps.config.auth.trustProxy,
      },
      guard,
    ),
    customerSessionsRouter({ db, clock: deps.clock, baseUrl: deps.config.baseUrl }, guard),
    emailUpdateRouter(
      { db, clock: deps.clock, baseUrl: deps.config.baseUrl, mailer: deps.mailer ?? null },
      customerGuard,
    ),
    seatsRouter(
      {
        db,
        clock: deps.clock,
        baseUrl: deps.config.baseUrl,
        queue: deps.queue,
        mailer: deps.mailer ?? null,
      },
      guard,
      customerGuard,
    ),
    // Public (no customer session), so before the portal's guard.
    customerPortalPublicRouter({ db, clock: deps.clock, baseUrl: deps.config.baseUrl }),
    customerPortalRouter({ ...billing, downloads }, customerGuard),
    invoicesRouter(
      {
        db,
        clock: deps.clock,
        baseUrl: deps.config.baseUrl,
        files,
        ttlSeconds: downloads.ttlSeconds,
      },
      guard,
      customerGuard,
      {
        order: (req, id) =>
          getOrder({ db, baseUrl: deps.config.baseUrl }, scopeOfCaller(authOf(req)), id),
        portalOrder: (req, id) => getMyOrder({ ...billing, downloads }, customerOf(req), id),
      },
    ),
  ]);
  app.use(
    "/v1",
    apiCors(deps.config.trustedOrigins),
    recordRequests(requestLog, deps.clock),
    jsonBodies,
    idempotentWrites,
    v1,
  );
  app.use(openApi.docs);
  app.use(buyRouter(checkoutDeps));
  app.use(oauth2PageRouter(oauth2, resolveAuth));
  app.use(
    webRouter({
      embedOrigins: [new URL(deps.config.baseUrl).origin],
      production: deps.config.mode === "production",
      stripe: deps.config.payments.stripe,
      checkoutEmbedOrigin: async (secret) =>
        (await bySecret(checkoutDeps, secret).catch(() => null))?.embedOrigin ?? null,
    }),
  );

  app.use(notFoundHandler);
  app.use(errorHandler());
  return app;
}

function checkoutDepsOf(deps: AppDeps): CheckoutDeps {
  return {
    db: deps.database.db,
    clock: deps.clock,
    config: deps.config,
    secretBox: deps.secretBox,
    tax: deps.tax,
    processor: deps.processor,
    queue: deps.queue,
  };
}
