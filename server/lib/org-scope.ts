// Tenancy by type: the organization ids a read of tenant rows may see. Repositories take an
// OrgScope instead of a bare id or id list, so a read can only be written with a scope that came
// from one of the constructors below, each naming why it is legitimate. The brand is a symbol
// private to this file, so a string or list never passes for a scope; TypeScript would still
// accept an explicit `as OrgScope` downcast, which lint refuses outside this file
// (lint/org-scope-cast.grit, a Biome plugin).
import { type AuthContext, organizationsForRead } from "./auth-context.ts";
import type { CustomerContext } from "./customer-context.ts";

declare const brand: unique symbol;

export type OrgScope = readonly string[] & { readonly [brand]: "OrgScope" };

const make = (ids: readonly string[]): OrgScope => Object.freeze([...new Set(ids)]) as OrgScope;

/**
 * The organizations the caller's credential proves, narrowed by an `organization_id` filter when
 * one is given (a filter naming an organization the caller cannot access narrows to nothing).
 */
export function scopeOfCaller(
  ctx: AuthContext,
  filter?: string | string[] | null | undefined,
): OrgScope {
  return make(organizationsForRead(ctx, filter));
}

/**
 * The organization of rows already read under tenancy (a checkout, subscription or order the
 * caller proved theirs, or a job's own row): what they refer to belongs to the same organization.
 */
export function scopeOfResource(...rows: readonly { readonly organizationId: string }[]): OrgScope {
  return make(rows.map((r) => r.organizationId));
}

/** The one organization a customer session token belongs to. */
export function scopeOfCustomer(ctx: CustomerContext): OrgScope {
  return make([ctx.organizationId]);
}
