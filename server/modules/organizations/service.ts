// Organizations as sellers: list and read the ones the caller belongs to, create one (the caller
// becomes its owner through better-auth), and update the seller profile with an
// organization.updated event in the same transaction.
import { APIError } from "better-auth/api";
import type { z } from "zod";
import { inTransaction, type Db } from "../../../db/client.ts";
import { assertAccessible, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { isUniqueViolation } from "../../lib/db-errors.ts";
import { NotPermitted, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import type { Config } from "../../config.ts";
import type { Auth } from "../auth/auth.ts";
import { mayCreateOrganization } from "../auth/platform-admins.ts";
import { userRole } from "../auth/queries.ts";
import { hasChargedOrders } from "../orders/queries.ts";
import { hasRunningPaidSubscriptions } from "../subscriptions/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { resetNotEnabled } from "./queries.ts";
import * as repo from "./repository.ts";
import {
  organizationOut,
  settingsOf,
  type organizationCreate,
  type organizationListQuery,
  type OrganizationEditable,
} from "./schemas.ts";

export interface OrganizationDeps {
  db: Db;
  clock: Clock;
  auth: Auth;
  config: Readonly<Config>;
}

export async function listOrganizations(
  deps: OrganizationDeps,
  ctx: AuthContext,
  query: z.output<typeof organizationListQuery>,
  page: Pagination,
) {
  const { rows, total } = await repo.listOrganizations(
    deps.db,
    scopeOfCaller(ctx),
    { slug: query.slug },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(organizationOut), total, page);
}

export async function getOrganization(deps: OrganizationDeps, ctx: AuthContext, id: string) {
  assertAccessible(ctx, id, "Organization not found.");
  const record = await repo.findOrganization(deps.db, scopeOfCaller(ctx), id);
  if (!record) throw new ResourceNotFound("Organization not found.");
  return organizationOut(record);
}

export async function createOrganization(
  deps: OrganizationDeps,
  ctx: AuthContext,
  input: z.output<typeof organizationCreate>,
) {
  if (ctx.kind !== "user" || !ctx.userId)
    throw new NotPermitted("Organizations are created by a signed-in user.");
  // better-auth skips its own creation check for a server-side call like this one; the rules are
  // the same as on /api/auth/organization/create.
  if (!mayCreateOrganization(deps.config, await userRole(deps.db, ctx.userId)))
    throw new NotPermitted("You are not allowed to create a new organization.");
  if (ctx.organizationIds.length >= deps.config.auth.organizationLimits.organizationsPerUser) {
    throw new NotPermitted("You have reached the maximum number of organizations.");
  }
  const slugTaken = () =>
    RequestValidationError.field(
      ["body", "slug"],
      "An organization with this slug already exists.",
    );
  if (await repo.slugTaken(deps.db, input.slug)) throw slugTaken();
  // Two requests for one slug can both pass the check above: the one that loses meets better-auth's
  // own check or the unique index, and is told the same.
  const created = await deps.auth.api
    .createOrganization({
      body: {
        name: input.name,
        slug: input.slug,
        userId: ctx.userId,
        ...(input.avatar_url ? { logo: input.avatar_url } : {}),
      },
    })
    .catch((err: unknown) => {
      const code =
        err instanceof APIError ? (err.body as { code?: unknown } | undefined)?.code : null;
      if (code === "ORGANIZATION_ALREADY_EXISTS" || isUniqueViolation(err)) throw slugTaken();
      throw err;
    });
  if (!created) throw new Error("better-auth did not create the organization");
  await repo.ensureProfile(deps.db, created.id);
  const { name: _n, slug: _s, avatar_url: _a, ...rest } = input;
  // The organization the caller just created is theirs, though their credential predates it.
  const scope = scopeOfResource({ organizationId: created.id });
  await applyUpdate(deps.db, deps.clock, scope, created.id, rest, false);
  return organizationOut((await repo.findOrganization(deps.db, scope, created.id))!);
}

/** The organization with this slug, for server-side seeding (no caller to scope by). */
export function organizationIdBySlug(db: Db, slug: string): Promise<string | null> {
  return repo.idBySlug(db, slug);
}

export async function updateOrganization(
  deps: OrganizationDeps,
  ctx: AuthContext,
  id: string,
  input: OrganizationEditable,
) {
  assertAccessible(ctx, id, "Organization not found.");
  return inTransaction(deps.db, async (tx) => {
    await applyUpdate(tx, deps.clock, scopeOfCaller(ctx), id, input, true);
    const record = await repo.findOrganization(tx, scopeOfCaller(ctx), id);
    if (!record) throw new ResourceNotFound("Organization not found.");
    const data = organizationOut(record);
    await recordEvent(tx, deps.clock, { organizationId: id, type: "organization.updated", data });
    return data;
  });
}

async function applyUpdate(
  db: Db,
  clock: Clock,
  scope: OrgScope,
  id: string,
  input: OrganizationEditable,
  touch: boolean,
): Promise<void> {
  const current = await repo.findOrganization(db, scope, id);
  if (!current) throw new ResourceNotFound("Organization not found.");
  const org: { name?: string; logo?: string | null } = {};
  if (input.name) org.name = input.name;
  if (input.avatar_url !== undefined) org.logo = input.avatar_url;

  const profile: Parameters<typeof repo.updateOrganization>[3] = {};
  if (input.email !== undefined) profile.email = input.email;
  if (input.website !== undefined) profile.website = input.website;
  if (input.socials) profile.socials = input.socials;
  if (input.country !== undefined) profile.country = input.country;
  if (input.default_presentment_currency)
    profile.defaultPresentmentCurrency = input.default_presentment_currency;
  if (input.default_tax_behavior) profile.defaultTaxBehavior = input.default_tax_behavior;
  if (input.embed_hosts) profile.embedHosts = input.embed_hosts;
  if (input.details) {
    profile.details = input.details;
    profile.detailsSubmittedAt = clock.now();
    if (current.profile.status === "created") profile.status = "review";
  }
  const settings: Record<string, unknown> = { ...current.profile.settings };
  const merged = settingsOf(current.profile.settings);
  for (const key of [
    "subscription_settings",
    "customer_email_settings",
    "customer_portal_settings",
    "feature_settings",
    "dispute_settings",
    "notification_settings",
    "order_settings",
  ] as const) {
    const value = input[key];
    if (value) settings[key] = { ...merged[key], ...value };
  }
  if (input.sso_enforced !== undefined && input.sso_enforced !== null)
    settings.sso_enforced = input.sso_enforced;
  assertResetAllowed(input, settingsOf(settings));
  profile.settings = settings;
  if (touch) profile.modifiedAt = clock.now();
  await repo.updateOrganization(db, id, org, profile);
}

/**
 * As Polar, the default proration behavior is `reset` only where the flag is on (this request's
 * value of it counts); the seller owns the flag here, so it cannot go off under a `reset` default.
 */
function assertResetAllowed(input: OrganizationEditable, next: ReturnType<typeof settingsOf>) {
  if (next.feature_settings.reset_proration_behavior_enabled) return;
  if (input.subscription_settings?.proration_behavior === "reset")
    throw resetNotEnabled(["body", "subscription_settings", "proration_behavior"]);
  const byDefault: string = next.subscription_settings.proration_behavior;
  if (input.feature_settings?.reset_proration_behavior_enabled === false && byDefault === "reset")
    throw RequestValidationError.field(
      ["body", "feature_settings", "reset_proration_behavior_enabled"],
      "The default proration behavior is 'reset': choose another one before disabling it.",
    );
}

/** Name, slug and avatar of an organization, for pages its customers see (checkout, portal). */
export async function organizationSummary(db: Db, id: string) {
  // The id is that of a customer session, seat or public slug: the page's own organization.
  const record = await repo.findOrganization(db, scopeOfResource({ organizationId: id }), id);
  if (!record) throw new ResourceNotFound("Organization not found.");
  const settings = settingsOf(record.profile.settings);
  const portal = settings.customer_portal_settings;
  return {
    id: record.org.id,
    name: record.org.name,
    slug: record.org.slug,
    avatarUrl: record.org.logo ?? null,
    createdAt: record.org.createdAt,
    customerEmails: settings.customer_email_settings,
    portal: {
      prorationBehavior: settings.subscription_settings.proration_behavior,
      allowCustomerUpdates: settings.subscription_settings.allow_customer_updates,
      showUsage: portal.usage.show,
      updateSeats: portal.subscription.update_seats,
      updatePlan: portal.subscription.update_plan,
      pause: portal.subscription.pause ?? false,
    },
  };
}

/**
 * Deleting an organization deletes its customers, orders and payments with it, so one that has
 * charged anything, or has a paid subscription still running, is refused (Polar's rule; Polar
 * then hands the request to support, a self-hosted till leaves it to the owner).
 */
export async function assertOrganizationDeletable(db: Db, organizationId: string): Promise<void> {
  const [orders, subscriptions] = await Promise.all([
    hasChargedOrders(db, organizationId),
    hasRunningPaidSubscriptions(db, organizationId),
  ]);
  if (!orders && !subscriptions) return;
  throw APIError.from("BAD_REQUEST", {
    code: "ORGANIZATION_HAS_SALES",
    message:
      "An organization with paid orders or running paid subscriptions cannot be deleted: its customers' orders and payments are kept.",
  });
}
