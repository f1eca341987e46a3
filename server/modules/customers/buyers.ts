// The customer a purchase belongs to: the one a checkout or draft order names (by id or external
// id), else the organization's live customer with the buyer's email, else a new one, created with
// its customer.created event in the caller's transaction.
import type { Db, Tx } from "../../../db/client.ts";
import type { CustomerAddress } from "../../../db/schema/index.ts";
import { hasStreetAddress } from "../../lib/billing-address-fields.ts";
import type { Clock } from "../../lib/clock.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { validateTaxId } from "./tax-id.ts";
import { customerOut, type CustomerRecord } from "./schemas.ts";

/** The customer a checkout session names, by id or external id, within the scope. */
export async function findCustomerForCheckout(
  db: Db,
  scope: OrgScope,
  by: { id: string | null; externalId: string | null },
): Promise<CustomerRecord | null> {
  if (by.id) return repo.findCustomer(db, scope, { id: by.id });
  if (by.externalId) return repo.findCustomer(db, scope, { externalId: by.externalId });
  return null;
}

export interface BuyerDetails {
  id: string | null;
  externalId: string | null;
  email: string;
  name: string | null;
  billingAddress: CustomerAddress | null;
  /** The business a business purchase is billed to: the customer's billing name from then on. */
  billingName?: string | null;
  /** The business's tax ID, as the customer keeps it (number and format). */
  taxId?: [string, string] | null;
}

/**
 * The customer's [number, format] for a tax ID a checkout kept, by its billing country; null when
 * it does not read as one of that country's (a number the customer had, checked by no country).
 */
export function taxIdPair(
  number: string | null,
  country: string | null | undefined,
): [string, string] | null {
  if (!number || !country) return null;
  const result = validateTaxId(number, country);
  return result.ok ? result.value : null;
}

/**
 * Whether the customer looks like a business: a billing name of its own and a street address, what
 * a business purchase leaves it. A checkout opened for it starts as a business purchase, as Polar's.
 */
export function boughtAsBusiness(customer: CustomerRecord | null): boolean {
  return Boolean(customer?.billingName && hasStreetAddress(customer.billingAddress));
}

/** The customer a purchase would resolve to, without creating one (null for a new buyer). */
export async function findBuyer(
  db: Db,
  scope: OrgScope,
  buyer: Pick<BuyerDetails, "id" | "externalId" | "email">,
): Promise<CustomerRecord | null> {
  return (
    (await findCustomerForCheckout(db, scope, buyer)) ??
    (await repo.findByEmail(db, scope, buyer.email))
  );
}

/**
 * The purchase's customer, created when new. An existing one the seller named (by id or external
 * id) takes the billing address, business name and tax ID the buyer gave, as Polar's does, so its
 * renewals are billed to where and whom the buyer last said. One found only by the email typed gets them
 * only where it has none: anyone can type an email, and a stranger's purchase must not rewrite
 * where and to whom a customer's invoices go.
 * `purchase` is the row being bought through (a checkout, a seat's subscription), read under
 * tenancy: its organization is where the customer is looked up and created.
 */
export async function resolveBuyer(
  db: Tx,
  clock: Clock,
  purchase: { organizationId: string },
  buyer: BuyerDetails,
): Promise<{ customer: CustomerRecord; created: boolean }> {
  const { organizationId } = purchase;
  const scope = scopeOfResource(purchase);
  const found = await lookUp(db, scope, buyer);
  if (found.existing) return adopt(db, clock, found.existing, found.named, buyer);
  const id = await repo.insertCustomerUnlessTaken(db, {
    organizationId,
    email: buyer.email,
    name: buyer.name,
    externalId: buyer.externalId,
    billingAddress: buyer.billingAddress,
    billingName: buyer.billingName ?? null,
    taxId: buyer.taxId ?? null,
    createdAt: clock.now(),
  });
  if (id === null) {
    // Another purchase by the same buyer (two checkouts confirmed at once) created the customer
    // since the look-up: it is this purchase's customer too.
    const raced = await lookUp(db, scope, buyer);
    if (!raced.existing)
      throw new Error("a customer holds the buyer's email or ID, but none is found");
    return adopt(db, clock, raced.existing, raced.named, buyer);
  }
  const customer = (await repo.findAnyCustomer(db, scope, id))!;
  await recordEvent(db, clock, {
    organizationId,
    type: "customer.created",
    data: customerOut(customer),
  });
  return { customer, created: true };
}

async function lookUp(db: Db, scope: OrgScope, buyer: BuyerDetails) {
  const named = await findCustomerForCheckout(db, scope, buyer);
  return { named, existing: named ?? (await repo.findByEmail(db, scope, buyer.email)) };
}

async function adopt(
  db: Tx,
  clock: Clock,
  existing: CustomerRecord,
  named: CustomerRecord | null,
  buyer: BuyerDetails,
): Promise<{ customer: CustomerRecord; created: boolean }> {
  const takes = <T>(given: T | null | undefined, held: T | null, same: (a: T, b: T) => boolean) =>
    given != null && (held === null || (named !== null && !same(given, held)));
  const changes = {
    ...(takes(buyer.billingAddress, existing.billingAddress, sameAddress)
      ? { billingAddress: buyer.billingAddress }
      : {}),
    ...(takes(buyer.billingName, existing.billingName, (a, b) => a === b)
      ? { billingName: buyer.billingName }
      : {}),
    ...(takes(buyer.taxId, existing.taxId, (a, b) => a[0] === b[0] && a[1] === b[1])
      ? { taxId: buyer.taxId }
      : {}),
  };
  if (Object.keys(changes).length === 0) return { customer: existing, created: false };
  const modifiedAt = clock.now();
  await repo.updateCustomer(db, existing.id, { ...changes, modifiedAt });
  const customer = { ...existing, ...changes, modifiedAt };
  await recordEvent(db, clock, {
    organizationId: existing.organizationId,
    type: "customer.updated",
    data: customerOut(customer),
  });
  return { customer, created: false };
}

function sameAddress(a: CustomerAddress, b: CustomerAddress): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof CustomerAddress>;
  return [...keys].every((k) => (a[k] ?? null) === (b[k] ?? null));
}
