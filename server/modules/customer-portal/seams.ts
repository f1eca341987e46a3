// Where benefit grants, license keys, downloadables and customer meter balances join the customer
// portal. Benefit grants come from the grants module; license keys, downloadables and meters are
// still empty lists (and 404 single reads) until they are wired the same way. Each function receives the customer already resolved from the
// session, so filling one in is a query scoped to `ctx.customerId` and nothing else changes.
import type { CustomerContext } from "../../lib/customer-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { pageOf, type Pagination } from "../../lib/pagination.ts";
import { grantOfCustomer, listGrantsOfCustomer } from "../grants/service.ts";
import type { PortalDeps } from "./service.ts";

/** GET /v1/customer-portal/benefit-grants/ — Polar's ListResource[CustomerBenefitGrant]. */
export async function listCustomerBenefitGrants(deps: PortalDeps, ctx: CustomerContext, page: Pagination) {
  return listGrantsOfCustomer(deps.db, ctx, page);
}

export async function getCustomerBenefitGrant(deps: PortalDeps, ctx: CustomerContext, id: string) {
  return grantOfCustomer(deps.db, ctx, id);
}

/** GET /v1/customer-portal/license-keys/ — Polar's ListResource[LicenseKeyRead]. */
export async function listCustomerLicenseKeys(_deps: PortalDeps, _ctx: CustomerContext, page: Pagination) {
  return pageOf<never>([], 0, page);
}

export async function getCustomerLicenseKey(_deps: PortalDeps, _ctx: CustomerContext, _id: string): Promise<never> {
  throw new ResourceNotFound("License key not found.");
}

/** GET /v1/customer-portal/downloadables/ — Polar's ListResource[DownloadableRead] with signed URLs. */
export async function listCustomerDownloadables(_deps: PortalDeps, _ctx: CustomerContext, page: Pagination) {
  return pageOf<never>([], 0, page);
}

/** GET /v1/customer-portal/meters/ — Polar's ListResource[CustomerCustomerMeter]. */
export async function listCustomerMeters(_deps: PortalDeps, _ctx: CustomerContext, page: Pagination) {
  return pageOf<never>([], 0, page);
}

export async function getCustomerMeter(_deps: PortalDeps, _ctx: CustomerContext, _id: string): Promise<never> {
  throw new ResourceNotFound("Customer meter not found.");
}
