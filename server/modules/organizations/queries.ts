// The organizations module's read API for other modules (no side effects).
import type { Db } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { type CustomerEmail, settingsOf } from "./schemas.ts";

/**
 * The organization a caller's row belongs to: callers pass the organization id of a row they read
 * under its scope, so that organization is the scope.
 */
function ownRecord(db: Db, organizationId: string) {
  return repo.findOrganization(db, scopeOfResource({ organizationId }), organizationId);
}

/** The ids of the organizations `userId` is a member of, oldest membership first. */
export function memberOrganizationIds(db: Db, userId: string): Promise<string[]> {
  return repo.memberOrganizationIds(db, userId);
}

/** What a subscription becomes after its last failed payment retry (Polar revokes: canceled). */
export async function dunningEndStatus(
  db: Db,
  organizationId: string,
): Promise<"canceled" | "unpaid"> {
  return (await subscriptionSettingsOf(db, organizationId))?.dunning_final_status ?? "canceled";
}

/**
 * The organization's subscription_settings, defaults filled in (Polar's: one subscription per
 * customer, benefits revoked as soon as a renewal fails, trials not limited); null when it is gone.
 */
export async function subscriptionSettingsOf(db: Db, organizationId: string) {
  const record = await ownRecord(db, organizationId);
  return record ? settingsOf(record.profile.settings).subscription_settings : null;
}

/**
 * The customer emails the organization sends (customer_email_settings; each on unless switched
 * off); null when the organization is gone.
 */
export async function customerEmailsOf(
  db: Db,
  organizationId: string,
): Promise<Record<CustomerEmail, boolean> | null> {
  const record = await ownRecord(db, organizationId);
  return record ? settingsOf(record.profile.settings).customer_email_settings : null;
}

/** The proration behavior a plan change uses when the request names none. */
export async function prorationBehaviorOf(
  db: Db,
  organizationId: string,
): Promise<"invoice" | "prorate" | "next_period" | "reset"> {
  return (await subscriptionSettingsOf(db, organizationId))?.proration_behavior ?? "prorate";
}

/** Whether the organization may create and finalize draft orders (off-session charges); off by default. */
export function offSessionChargesEnabled(db: Db, organizationId: string): Promise<boolean> {
  return featureOn(db, organizationId, "off_session_charges_enabled");
}

/** Whether plan and seat changes may use `reset` (feature_settings.reset_proration_behavior_enabled). */
export function resetProrationEnabled(db: Db, organizationId: string): Promise<boolean> {
  return featureOn(db, organizationId, "reset_proration_behavior_enabled");
}

/** Polar's refusal of `reset` where the organization has not enabled it, at `loc`. */
export function resetNotEnabled(loc: string[]): RequestValidationError {
  return RequestValidationError.field(
    loc,
    "The 'reset' proration behavior is not enabled for this organization.",
  );
}

/** Whether the organization uses the member model (feature_settings.member_model_enabled). */
export function memberModelEnabled(db: Db, organizationId: string): Promise<boolean> {
  return featureOn(db, organizationId, "member_model_enabled");
}

async function featureOn(
  db: Db,
  organizationId: string,
  flag: "off_session_charges_enabled" | "member_model_enabled" | "reset_proration_behavior_enabled",
): Promise<boolean> {
  const record = await ownRecord(db, organizationId);
  return record ? settingsOf(record.profile.settings).feature_settings[flag] : false;
}

/** The currency an organization charges in when a request names none. */
export async function defaultCurrencyOf(db: Db, organizationId: string): Promise<string> {
  const record = await ownRecord(db, organizationId);
  return record?.profile.defaultPresentmentCurrency ?? "usd";
}

/** Name, slug and logo of an organization, for consent screens; null when it does not exist. */
export async function organizationSummary(
  db: Db,
  organizationId: string,
): Promise<{ id: string; name: string; slug: string; avatarUrl: string | null } | null> {
  const record = await ownRecord(db, organizationId);
  if (!record) return null;
  const { org } = record;
  return { id: org.id, name: org.name, slug: org.slug, avatarUrl: org.logo ?? null };
}

/**
 * How the organization numbers its invoices and receipts (order_settings.invoice_numbering: per
 * customer by default, as Polar) and the prefix its numbers start with, from its slug.
 */
export async function documentNumberingOf(
  db: Db,
  organizationId: string,
): Promise<{ numbering: "customer" | "organization"; prefix: string }> {
  const record = await ownRecord(db, organizationId);
  if (!record) throw new Error(`organization ${organizationId} not found for numbering`);
  return {
    numbering: settingsOf(record.profile.settings).order_settings.invoice_numbering,
    prefix:
      record.org.slug
        .replace(/[^a-zA-Z0-9]/g, "")
        .slice(0, 12)
        .toUpperCase() || "INV",
  };
}
