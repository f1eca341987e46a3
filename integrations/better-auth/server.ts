// till's better-auth plugin for a seller's own app: checkout creation for the embed (POST /checkout),
// the signed-in customer's state, portal link, subscriptions, orders, benefits and usage, webhook
// deliveries, and (optionally) a till customer per user, kept in step on update and delete. The
// signed-in user's id is the till customer's external_id throughout.
import type { BetterAuthPlugin, User } from "better-auth";
import {
  APIError,
  createAuthEndpoint,
  getSessionFromCtx,
  sessionMiddleware,
} from "better-auth/api";
import { z } from "zod";
import { type CustomerSyncOptions, customerHooks } from "./customer-sync.ts";
import { createTillApi, TillApiError, type TillApi, type TillApiOptions } from "./till-api.ts";
import {
  dispatchWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookOptions,
} from "./webhooks.ts";

export interface TillProductSlug {
  productId: string;
  slug: string;
}

export interface TillPluginOptions extends TillApiOptions, CustomerSyncOptions {
  /** Products the checkout may name by slug instead of id. */
  products?: TillProductSlug[] | (() => Promise<TillProductSlug[]>);
  /** Only signed-in users may open a checkout. */
  authenticatedUsersOnly?: boolean;
  /** Default success URL (absolute, or a path on this app); `{CHECKOUT_ID}` is replaced by till. */
  successUrl?: string;
  /** Default "back" link on the checkout page. */
  returnUrl?: string;
  /** Theme for the checkout and portal pages ("light" or "dark"). */
  theme?: "light" | "dark";
  /** Where the portal's back button goes. */
  portalReturnUrl?: string;
  /**
   * May this user list the subscriptions of `referenceId` (a team or organization of the seller's
   * app)? Without it, listing by referenceId is refused: the list is organization-wide by metadata.
   */
  authorizeReference?: (input: { user: User; referenceId: string }) => boolean | Promise<boolean>;
  /** Webhook endpoint secret and handlers; without it POST /till/webhooks answers 404. */
  webhooks?: WebhookOptions;
}

const urlOrPath = z.string().refine((v) => v.startsWith("/") || URL.canParse(v), {
  message: "Must be a valid URL or a path starting with /",
});

export const checkoutInput = z.object({
  products: z.union([z.array(z.string().min(1)), z.string().min(1)]).optional(),
  slug: z.string().min(1).optional(),
  referenceId: z.string().min(1).max(500).optional(),
  customFieldData: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  metadata: z
    .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
    .refine((m) => Object.keys(m).length <= 50, { message: "Metadata can have at most 50 keys" })
    .optional(),
  allowDiscountCodes: z.boolean().optional(),
  discountId: z.string().optional(),
  redirect: z.boolean().optional(),
  embedOrigin: z.url({ protocol: /^https?$/ }).optional(),
  successUrl: urlOrPath.optional(),
  returnUrl: urlOrPath.optional(),
});
export type CheckoutInput = z.output<typeof checkoutInput>;

const pageQuery = z.object({
  page: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

/** A till error answered to the browser with till's own message and a matching status. */
function passOn(err: unknown, fallback: string): never {
  if (err instanceof APIError) throw err;
  if (err instanceof TillApiError) {
    const status =
      err.status === 404
        ? "NOT_FOUND"
        : err.status === 403
          ? "FORBIDDEN"
          : err.status === 401
            ? "UNAUTHORIZED"
            : err.status < 500
              ? "BAD_REQUEST"
              : "BAD_GATEWAY";
    throw new APIError(status, { message: err.message, code: err.error });
  }
  throw new APIError("INTERNAL_SERVER_ERROR", { message: fallback });
}

async function portalToken(api: TillApi, userId: string): Promise<string> {
  return (await api.customerSessions.create({ external_customer_id: userId })).token;
}

export function till(options: TillPluginOptions) {
  const api = createTillApi(options);
  const withTheme = (url: string) => {
    if (!options.theme) return url;
    const u = new URL(url);
    u.searchParams.set("theme", options.theme);
    return u.toString();
  };

  return {
    id: "till",
    init() {
      return { options: { databaseHooks: { user: customerHooks(api, options) } } };
    },
    endpoints: {
      tillCheckout: createAuthEndpoint(
        "/checkout",
        { method: "POST", body: checkoutInput },
        async (ctx) => {
          const session = await getSessionFromCtx(ctx);
          if (
            options.authenticatedUsersOnly &&
            (!session?.user.id || session.user.isAnonymous === true)
          ) {
            throw new APIError("UNAUTHORIZED", { message: "You must be signed in to check out." });
          }
          let products: string[];
          if (ctx.body.slug) {
            const known =
              typeof options.products === "function"
                ? await options.products()
                : (options.products ?? []);
            const found = known.find((p) => p.slug === ctx.body.slug);
            if (!found)
              throw new APIError("BAD_REQUEST", {
                message: `No product with the slug "${ctx.body.slug}".`,
              });
            products = [found.productId];
          } else {
            products = [ctx.body.products ?? []].flat();
          }
          if (products.length === 0)
            throw new APIError("BAD_REQUEST", { message: "Name a product: products or slug." });
          const base = ctx.request?.url ?? ctx.context.baseURL;
          const absolute = (u: string | undefined) => (u ? new URL(u, base).toString() : undefined);
          try {
            const checkout = await api.checkouts.create({
              products,
              ...(session?.user.id
                ? { external_customer_id: session.user.id, customer_email: session.user.email }
                : {}),
              metadata: ctx.body.referenceId
                ? { referenceId: ctx.body.referenceId, ...ctx.body.metadata }
                : (ctx.body.metadata ?? {}),
              custom_field_data: ctx.body.customFieldData ?? {},
              allow_discount_codes: ctx.body.allowDiscountCodes ?? true,
              ...(ctx.body.discountId ? { discount_id: ctx.body.discountId } : {}),
              ...(ctx.body.embedOrigin ? { embed_origin: ctx.body.embedOrigin } : {}),
              success_url: absolute(ctx.body.successUrl ?? options.successUrl) ?? null,
              return_url: absolute(ctx.body.returnUrl ?? options.returnUrl) ?? null,
            });
            return ctx.json({ url: withTheme(checkout.url), redirect: ctx.body.redirect ?? true });
          } catch (err) {
            passOn(err, "Checkout creation failed.");
          }
        },
      ),

      tillCustomerState: createAuthEndpoint(
        "/customer/state",
        { method: "GET", use: [sessionMiddleware] },
        async (ctx) => {
          try {
            return ctx.json(await api.customers.stateExternal(ctx.context.session.user.id));
          } catch (err) {
            passOn(err, "Customer state could not be read.");
          }
        },
      ),

      tillCustomerPortal: createAuthEndpoint(
        "/customer/portal",
        {
          method: ["GET", "POST"],
          body: z.object({ redirect: z.boolean().optional() }).optional(),
          use: [sessionMiddleware],
        },
        async (ctx) => {
          if (ctx.context.session.user.isAnonymous === true)
            throw new APIError("UNAUTHORIZED", { message: "Anonymous users have no portal." });
          try {
            const session = await api.customerSessions.create({
              external_customer_id: ctx.context.session.user.id,
              return_url: options.portalReturnUrl,
            });
            return ctx.json({
              url: withTheme(session.customer_portal_url),
              redirect: ctx.body?.redirect ?? true,
            });
          } catch (err) {
            passOn(err, "The customer portal could not be opened.");
          }
        },
      ),

      tillCustomerSubscriptions: createAuthEndpoint(
        "/customer/subscriptions/list",
        {
          method: "GET",
          query: pageQuery
            .extend({
              referenceId: z.string().optional(),
              active: z.enum(["true", "false"]).optional(),
            })
            .optional(),
          use: [sessionMiddleware],
        },
        async (ctx) => {
          const q = ctx.query ?? {};
          const active = q.active === undefined ? undefined : q.active === "true";
          try {
            // By reference (an organization or team of the seller's app): the seller's own list by metadata.
            if (q.referenceId) {
              const allowed =
                (await options.authorizeReference?.({
                  user: ctx.context.session.user,
                  referenceId: q.referenceId,
                })) ?? false;
              if (!allowed)
                throw new APIError("FORBIDDEN", {
                  message: "You may not list the subscriptions of this reference.",
                });
            }
            if (q.referenceId)
              return ctx.json(
                await api.subscriptions.list({
                  page: q.page,
                  limit: q.limit,
                  active,
                  metadata: { referenceId: q.referenceId },
                }),
              );
            return ctx.json(
              await api.portal.subscriptions(await portalToken(api, ctx.context.session.user.id), {
                page: q.page,
                limit: q.limit,
                active,
              }),
            );
          } catch (err) {
            passOn(err, "Subscriptions could not be listed.");
          }
        },
      ),

      tillCustomerOrders: createAuthEndpoint(
        "/customer/orders/list",
        {
          method: "GET",
          query: pageQuery
            .extend({ productBillingType: z.enum(["recurring", "one_time"]).optional() })
            .optional(),
          use: [sessionMiddleware],
        },
        async (ctx) => {
          try {
            const q = ctx.query ?? {};
            return ctx.json(
              await api.portal.orders(await portalToken(api, ctx.context.session.user.id), q),
            );
          } catch (err) {
            passOn(err, "Orders could not be listed.");
          }
        },
      ),

      tillCustomerBenefits: createAuthEndpoint(
        "/customer/benefits/list",
        { method: "GET", query: pageQuery.optional(), use: [sessionMiddleware] },
        async (ctx) => {
          try {
            return ctx.json(
              await api.portal.benefitGrants(
                await portalToken(api, ctx.context.session.user.id),
                ctx.query ?? {},
              ),
            );
          } catch (err) {
            passOn(err, "Benefits could not be listed.");
          }
        },
      ),

      tillUsageIngest: createAuthEndpoint(
        "/usage/ingest",
        {
          method: "POST",
          body: z.object({
            event: z.string().min(1),
            metadata: z
              .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
              .default({}),
          }),
          use: [sessionMiddleware],
        },
        async (ctx) => {
          try {
            return ctx.json(
              await api.events.ingest([
                {
                  name: ctx.body.event,
                  metadata: ctx.body.metadata,
                  external_customer_id: ctx.context.session.user.id,
                },
              ]),
            );
          } catch (err) {
            passOn(err, "Usage could not be recorded.");
          }
        },
      ),

      tillUsageMeters: createAuthEndpoint(
        "/usage/meters/list",
        { method: "GET", query: pageQuery.optional(), use: [sessionMiddleware] },
        async (ctx) => {
          try {
            return ctx.json(
              await api.portal.meters(
                await portalToken(api, ctx.context.session.user.id),
                ctx.query ?? {},
              ),
            );
          } catch (err) {
            passOn(err, "Meters could not be listed.");
          }
        },
      ),

      tillWebhooks: createAuthEndpoint(
        "/till/webhooks",
        { method: "POST", metadata: { isAction: false }, cloneRequest: true },
        async (ctx) => {
          if (!options.webhooks)
            throw new APIError("NOT_FOUND", { message: "Webhooks are not configured." });
          if (!ctx.request) throw new APIError("BAD_REQUEST", { message: "No request body." });
          const body = await ctx.request.text();
          const h = ctx.request.headers;
          let payload: ReturnType<typeof verifyWebhook>;
          try {
            payload = verifyWebhook(options.webhooks.secret, body, {
              "webhook-id": h.get("webhook-id"),
              "webhook-timestamp": h.get("webhook-timestamp"),
              "webhook-signature": h.get("webhook-signature"),
            });
          } catch (err) {
            if (err instanceof WebhookVerificationError)
              throw new APIError("FORBIDDEN", {
                message: `Webhook signature rejected: ${err.message}`,
              });
            throw err;
          }
          try {
            await dispatchWebhook(payload, options.webhooks);
          } catch (err) {
            ctx.context.logger.error(
              `till webhook handler failed: ${err instanceof Error ? err.message : String(err)}`,
            );
            // A non-2xx answer makes till deliver again later.
            throw new APIError("INTERNAL_SERVER_ERROR", { message: "Webhook handler failed." });
          }
          return ctx.json({ received: true });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}
