// Where benefit grants, license keys, downloadables and customer meter balances join the customer
// portal. Each module answers for one customer through one service function; the portal hands it
// the customer already resolved from the session, so every read is scoped to `ctx.customerId` and
// its organization, and another customer's id is a 404.
import type { CustomerContext } from "../../lib/customer-context.ts";
import type { Pagination } from "../../lib/pagination.ts";
import { listDownloadablesOfCustomer } from "../grants/downloads.ts";
import { updateGrantOfCustomer } from "../grants/customer-update.ts";
import type {
  CustomerGrantListQuery,
  CustomerGrantUpdate,
  CustomerMeterListQuery,
  GrantOut,
} from "../grants/schemas.ts";
import {
  grantOfCustomer,
  listGrantsOfCustomer,
  listMetersOfCustomer,
  meterOfCustomer,
} from "../grants/service.ts";
import { keyOfCustomer, listKeysOfCustomer } from "../license-keys/service.ts";
import { organizationSummary } from "../organizations/service.ts";
import {
  type BenefitIdQuery,
  type CustomerGrantOut,
  customerGrantOut,
  customerOrganizationOut,
} from "./schemas.ts";
import type { PortalDeps } from "./service.ts";

/** Polar's CustomerBenefitGrant for each of the customer's grants, the seller embedded once. */
async function customerGrants(
  deps: PortalDeps,
  ctx: CustomerContext,
  grants: GrantOut[],
): Promise<CustomerGrantOut[]> {
  const organization = customerOrganizationOut(
    await organizationSummary(deps.db, ctx.organizationId),
  );
  return grants.map((g) => customerGrantOut(g, organization));
}

/** GET /v1/customer-portal/benefit-grants/ — Polar's ListResource[CustomerBenefitGrant]. */
export async function listCustomerBenefitGrants(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: CustomerGrantListQuery,
  page: Pagination,
) {
  const list = await listGrantsOfCustomer(deps.db, ctx, q, page);
  return { ...list, items: await customerGrants(deps, ctx, list.items) };
}

export async function getCustomerBenefitGrant(deps: PortalDeps, ctx: CustomerContext, id: string) {
  const [grant] = await customerGrants(deps, ctx, [await grantOfCustomer(deps.db, ctx, id)]);
  return grant!;
}

/** PATCH /v1/customer-portal/benefit-grants/{id}: which linked account a Discord/GitHub grant goes to. */
export async function updateCustomerBenefitGrant(
  deps: PortalDeps,
  ctx: CustomerContext,
  id: string,
  input: CustomerGrantUpdate,
) {
  const updated = await updateGrantOfCustomer(deps.db, deps, ctx, id, input);
  const [grant] = await customerGrants(deps, ctx, [updated]);
  return grant!;
}

/** GET /v1/customer-portal/license-keys/ — Polar's ListResource[LicenseKeyRead]. */
export async function listCustomerLicenseKeys(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: BenefitIdQuery,
  page: Pagination,
) {
  return listKeysOfCustomer(deps.db, ctx, q, page);
}

/** GET /v1/customer-portal/license-keys/{id} — Polar's LicenseKeyWithActivations. */
export async function getCustomerLicenseKey(deps: PortalDeps, ctx: CustomerContext, id: string) {
  return keyOfCustomer(deps.db, ctx, id);
}

/** GET /v1/customer-portal/downloadables/ — Polar's ListResource[DownloadableRead] with signed URLs. */
export async function listCustomerDownloadables(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: BenefitIdQuery,
  page: Pagination,
) {
  return listDownloadablesOfCustomer(deps.downloads, ctx, q, page);
}

/** GET /v1/customer-portal/meters/ — Polar's ListResource[CustomerCustomerMeter]. */
export async function listCustomerMeters(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: CustomerMeterListQuery,
  page: Pagination,
) {
  return listMetersOfCustomer(deps.db, ctx, q, page);
}

export async function getCustomerMeter(deps: PortalDeps, ctx: CustomerContext, id: string) {
  return meterOfCustomer(deps.db, ctx, id);
}
