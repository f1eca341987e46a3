// License keys: issued when a license_keys benefit is granted (a CSPRNG key with the benefit's
// prefix, expiry from ttl/timeframe, activation and usage limits), revoked with the grant, and read
// and adjusted by the seller (status, usage, limits, expiry).
import { randomBytes } from "node:crypto";
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { addInterval } from "../../lib/periods.ts";
import { customersByIds } from "../customers/queries.ts";
import * as repo from "./repository.ts";
import {
  activationBaseOut,
  displayKey,
  licenseKeyOut,
  type ActivationReadOut,
  type LicenseKeyUpdate,
} from "./schemas.ts";

export interface LicenseKeyDeps {
  db: Db;
  clock: Clock;
}

export async function serializeKeys(db: Db, rows: repo.LicenseKeyRow[]) {
  const customers = await customersByIds(db, scopeOfResource(...rows), [
    ...new Set(rows.map((r) => r.customerId)),
  ]);
  const byId = new Map(customers.map((c) => [c.id, c]));
  return rows.map((r) => licenseKeyOut(r, byId.get(r.customerId)!));
}

export async function serializeKey(db: Db, row: repo.LicenseKeyRow) {
  return (await serializeKeys(db, [row]))[0]!;
}

export async function listLicenseKeys(
  deps: LicenseKeyDeps,
  ctx: AuthContext,
  q: {
    organization_id?: string[] | undefined;
    benefit_id?: string[] | undefined;
    status?: string[] | undefined;
  },
  page: Pagination,
) {
  const { rows, total } = await repo.listKeys(
    deps.db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      benefitIds: q.benefit_id,
      statuses: q.status,
    },
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeKeys(deps.db, rows), total, page);
}

async function ownKey(deps: LicenseKeyDeps, ctx: AuthContext, id: string) {
  const row = await repo.findKey(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("License key not found.");
  return row;
}

/** Polar's LicenseKeyWithActivations. */
async function renderWithActivations(db: Db, row: repo.LicenseKeyRow) {
  const activations = await repo.activationsOf(db, row.id);
  return { ...(await serializeKey(db, row)), activations: activations.map(activationBaseOut) };
}

export async function getLicenseKey(deps: LicenseKeyDeps, ctx: AuthContext, id: string) {
  return renderWithActivations(deps.db, await ownKey(deps, ctx, id));
}

export async function updateLicenseKey(
  deps: LicenseKeyDeps,
  ctx: AuthContext,
  id: string,
  input: LicenseKeyUpdate,
) {
  const row = await ownKey(deps, ctx, id);
  const values: Partial<repo.LicenseKeyRow> = { modifiedAt: deps.clock.now() };
  if (input.status) values.status = input.status;
  if (input.usage !== undefined) values.usage = input.usage;
  if (input.limit_activations !== undefined) values.limitActivations = input.limit_activations;
  if (input.limit_usage !== undefined) values.limitUsage = input.limit_usage;
  if (input.expires_at !== undefined)
    values.expiresAt = input.expires_at === null ? null : new Date(input.expires_at);
  return serializeKey(deps.db, await repo.updateKey(deps.db, row.id, values));
}

/** Polar's rotation: a granted or disabled key gets a new key string; nothing else changes. */
export async function rotateLicenseKey(deps: LicenseKeyDeps, ctx: AuthContext, id: string) {
  const row = await ownKey(deps, ctx, id);
  if (row.status === "revoked")
    throw new ApiError(
      400,
      "RotateNotPermitted",
      "A revoked license key cannot be rotated. Allowed statuses: disabled, granted.",
    );
  // The key keeps its prefix: everything before the four random groups.
  const groups = row.key.split("-");
  const prefix = groups.length > 4 ? groups.slice(0, -4).join("-") : null;
  const rotated = await inTransaction(deps.db, async (tx) => {
    const updated = await repo.updateKey(tx, row.id, {
      key: generateKey(prefix),
      modifiedAt: deps.clock.now(),
    });
    if (updated.grantId)
      await repo.setGrantDisplayKey(tx, updated.grantId, displayKey(updated.key));
    return updated;
  });
  return serializeKey(deps.db, rotated);
}

export async function getActivation(
  deps: LicenseKeyDeps,
  ctx: AuthContext,
  id: string,
  activationId: string,
): Promise<ActivationReadOut> {
  const row = await ownKey(deps, ctx, id);
  const activation = await repo.findActivation(deps.db, row.id, activationId);
  if (!activation) throw new ResourceNotFound("License key activation not found.");
  return { ...activationBaseOut(activation), license_key: await serializeKey(deps.db, row) };
}

// For the customer portal: one customer's keys, scoped by the session's customer and organization.

export async function listKeysOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  q: { benefit_id?: string[] | undefined },
  page: Pagination,
) {
  const { rows, total } = await repo.listKeys(
    db,
    {
      scope: scopeOfResource(customer),
      customerIds: [customer.customerId],
      benefitIds: q.benefit_id,
    },
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeKeys(db, rows), total, page);
}

export async function keyOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  id: string,
) {
  const row = await repo.findKey(db, scopeOfResource(customer), id);
  if (!row || row.customerId !== customer.customerId)
    throw new ResourceNotFound("License key not found.");
  return renderWithActivations(db, row);
}

// For the grants module.

export interface LicenseKeyBenefit {
  prefix?: string | null;
  expires?: { ttl: number; timeframe: "year" | "month" | "day" } | null;
  activations?: { limit: number; enable_customer_admin: boolean } | null;
  limit_usage?: number | null;
}

/** 128 random bits (CSPRNG) as four uppercase hex groups after the prefix: PREFIX-XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX. */
function generateKey(prefix: string | null | undefined): string {
  const hex = randomBytes(16).toString("hex").toUpperCase();
  const groups = hex.match(/.{8}/g)!.join("-");
  return prefix ? `${prefix.toUpperCase()}-${groups}` : groups;
}

/** Issues the grant's key, or grants its existing key again (a re-grant keeps the same key). */
export async function issueLicenseKey(
  tx: Tx,
  clock: Clock,
  grant: { id: string; organizationId: string; customerId: string; benefitId: string },
  p: LicenseKeyBenefit,
) {
  const now = clock.now();
  const existing = await repo.keyOfGrant(tx, grant.id);
  if (existing) {
    const row = await repo.updateKey(tx, existing.id, { status: "granted", modifiedAt: now });
    return { license_key_id: row.id, display_key: displayKey(row.key) };
  }
  const row = await repo.insertKey(tx, {
    organizationId: grant.organizationId,
    customerId: grant.customerId,
    benefitId: grant.benefitId,
    grantId: grant.id,
    key: generateKey(p.prefix),
    status: "granted",
    limitActivations: p.activations?.limit ?? null,
    limitUsage: p.limit_usage ?? null,
    expiresAt: p.expires ? addInterval(now, p.expires.timeframe, p.expires.ttl) : null,
    createdAt: now,
  });
  return { license_key_id: row.id, display_key: displayKey(row.key) };
}

export async function revokeLicenseKey(tx: Tx, clock: Clock, grantId: string): Promise<void> {
  const existing = await repo.keyOfGrant(tx, grantId);
  if (existing)
    await repo.updateKey(tx, existing.id, { status: "revoked", modifiedAt: clock.now() });
}
