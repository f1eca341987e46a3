// Customers: create, read, update and soft-delete a seller's customers. Email (case-insensitive)
// and external_id are unique per organization among live customers; every change records its
// customer.* webhook event in the same transaction.
import { createHash } from "node:crypto";
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { CustomerAddress } from "../../../db/schema/index.ts";
import {
  assertAccessible,
  organizationForWrite,
  type AuthContext,
} from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { uniqueViolation } from "../../lib/db-errors.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { linkCustomerEvents } from "../events/service.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { revokeBenefitsOfCustomer } from "../grants/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { customerStateExtras } from "./states.ts";
import {
  customerOut,
  type CustomerCreate,
  type CustomerListQuery,
  type CustomerRecord,
  type CustomerUpdate,
} from "./schemas.ts";
import { validateTaxId } from "./tax-id.ts";

export interface CustomerDeps {
  db: Db;
  clock: Clock;
  /** Deleting a customer queues the revocation of their benefit grants. */
  queue?: QueueHandle | null;
}

export type CustomerRef = { id: string } | { externalId: string };

export async function listCustomers(
  deps: CustomerDeps,
  ctx: AuthContext,
  query: CustomerListQuery,
  metadata: Record<string, string[]>,
  page: Pagination,
) {
  const filter = { email: query.email, query: query.query, active: query.active, metadata };
  const { rows, total } = await repo.listCustomers(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    filter,
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(customerOut), total, page);
}

async function load(db: Db, ctx: AuthContext, ref: CustomerRef): Promise<CustomerRecord> {
  const found = await repo.findCustomer(db, scopeOfCaller(ctx), ref);
  if (!found) throw new ResourceNotFound("Customer not found.");
  assertAccessible(ctx, found.organizationId, "Customer not found.");
  return found;
}

export async function getCustomer(deps: CustomerDeps, ctx: AuthContext, ref: CustomerRef) {
  return customerOut(await load(deps.db, ctx, ref));
}

function taxIdFor(
  input: CustomerUpdate["tax_id"],
  country: string | null,
): [string, string] | null | undefined {
  if (input === undefined) return undefined;
  if (input === null) return null;
  const result = validateTaxId(input, country);
  if (!result.ok) throw RequestValidationError.field(["body", "tax_id"], result.msg);
  return result.value;
}

function address(input: CustomerUpdate["billing_address"]): CustomerAddress | null | undefined {
  if (input === undefined || input === null) return input;
  return {
    line1: input.line1 ?? null,
    line2: input.line2 ?? null,
    postal_code: input.postal_code ?? null,
    city: input.city ?? null,
    state: input.state ?? null,
    country: input.country,
  };
}

async function assertUnique(
  db: Db,
  scope: OrgScope,
  values: { email?: string | null | undefined; externalId?: string | null | undefined },
  exceptId?: string,
) {
  const taken = await repo.conflicts(db, scope, values, exceptId);
  if (taken.email)
    throw RequestValidationError.field(
      ["body", "email"],
      "A customer with this email address already exists.",
    );
  if (taken.externalId)
    throw RequestValidationError.field(
      ["body", "external_id"],
      "A customer with this external ID already exists.",
    );
}

/** A race past assertUnique hits the unique index; answer it the same way. */
async function guardUnique<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const constraint = uniqueViolation(err);
    if (constraint === "customers_org_email_uq")
      throw RequestValidationError.field(
        ["body", "email"],
        "A customer with this email address already exists.",
      );
    if (constraint === "customers_org_external_id_uq")
      throw RequestValidationError.field(
        ["body", "external_id"],
        "A customer with this external ID already exists.",
      );
    throw err;
  }
}

export async function createCustomer(deps: CustomerDeps, ctx: AuthContext, input: CustomerCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  // The organization was proven by organizationForWrite.
  const scope = scopeOfResource({ organizationId });
  const billingAddress = address(input.billing_address);
  const taxId = taxIdFor(input.tax_id, billingAddress?.country ?? null);
  const now = deps.clock.now();
  return guardUnique(() =>
    inTransaction(deps.db, async (tx) => {
      await assertUnique(tx, scope, { email: input.email, externalId: input.external_id });
      const id = await repo.insertCustomer(tx, {
        organizationId,
        email: input.email,
        externalId: input.external_id ?? null,
        name: input.name ?? null,
        billingAddress: billingAddress ?? null,
        taxId: taxId ?? null,
        locale: input.locale ?? null,
        metadata: input.metadata ?? {},
        createdAt: now,
      });
      if (input.external_id) await linkCustomerEvents(tx, organizationId, id, input.external_id);
      const data = customerOut((await repo.findAnyCustomer(tx, scope, id))!);
      await recordEvent(tx, deps.clock, { organizationId, type: "customer.created", data });
      return data;
    }),
  );
}

export async function updateCustomer(
  deps: CustomerDeps,
  ctx: AuthContext,
  ref: CustomerRef,
  input: CustomerUpdate,
) {
  return guardUnique(() =>
    inTransaction(deps.db, async (tx) => {
      const current = await load(tx, ctx, ref);
      const values: Parameters<typeof repo.updateCustomer>[2] = {};
      if (input.external_id !== undefined && input.external_id !== current.externalId) {
        // Polar: once set, the external id is fixed; it may only be set when still empty.
        if (current.externalId !== null || input.external_id === null) {
          throw RequestValidationError.field(
            ["body", "external_id"],
            "The external ID cannot be changed once set.",
          );
        }
        values.externalId = input.external_id;
      }
      if (input.email && input.email !== current.email) {
        values.email = input.email;
        values.emailVerified = false;
      }
      if (input.name !== undefined) values.name = input.name;
      if (input.locale !== undefined) values.locale = input.locale;
      if (input.metadata !== undefined) values.metadata = input.metadata;
      const billingAddress = address(input.billing_address);
      if (billingAddress !== undefined) values.billingAddress = billingAddress;
      const country =
        (billingAddress === undefined ? current.billingAddress : billingAddress)?.country ?? null;
      const taxId = taxIdFor(input.tax_id, country);
      if (taxId !== undefined) values.taxId = taxId;
      await assertUnique(
        tx,
        scopeOfResource(current),
        { email: values.email, externalId: values.externalId },
        current.id,
      );
      values.modifiedAt = deps.clock.now();
      await repo.updateCustomer(tx, current.id, values);
      if (values.externalId)
        await linkCustomerEvents(tx, current.organizationId, current.id, values.externalId);
      const data = customerOut(
        (await repo.findAnyCustomer(tx, scopeOfResource(current), current.id))!,
      );
      await recordEvent(tx, deps.clock, {
        organizationId: current.organizationId,
        type: "customer.updated",
        data,
      });
      return data;
    }),
  );
}

/**
 * The billing details a customer may change about themselves (the customer portal): billing name,
 * address and tax id, validated as the seller's update validates them, with customer.updated.
 */
export async function updateCustomerBilling(
  deps: CustomerDeps,
  ctx: AuthContext,
  id: string,
  input: Pick<CustomerUpdate, "billing_address" | "tax_id"> & {
    billing_name?: string | null | undefined;
  },
) {
  return inTransaction(deps.db, async (tx) => {
    const current = await load(tx, ctx, { id });
    const values: Parameters<typeof repo.updateCustomer>[2] = {};
    if (input.billing_name !== undefined) values.billingName = input.billing_name;
    const billingAddress = address(input.billing_address);
    if (billingAddress !== undefined) values.billingAddress = billingAddress;
    const country =
      (billingAddress === undefined ? current.billingAddress : billingAddress)?.country ?? null;
    const taxId = taxIdFor(input.tax_id, country);
    if (taxId !== undefined) values.taxId = taxId;
    values.modifiedAt = deps.clock.now();
    await repo.updateCustomer(tx, current.id, values);
    const data = customerOut(
      (await repo.findAnyCustomer(tx, scopeOfResource(current), current.id))!,
    );
    await recordEvent(tx, deps.clock, {
      organizationId: current.organizationId,
      type: "customer.updated",
      data,
    });
    return data;
  });
}

/**
 * The customer proved they own a new address (the portal's email update): it becomes their email,
 * verified, with customer.updated, in the caller's transaction. Null when another customer of the
 * organization has it; else the previous address.
 */
export async function changeToVerifiedEmail(
  tx: Tx,
  clock: Clock,
  customer: { organizationId: string; id: string },
  email: string,
): Promise<{ previous: string } | null> {
  const scope = scopeOfResource(customer);
  const taken = await repo.conflicts(tx, scope, { email }, customer.id);
  if (taken.email) return null;
  const current = await repo.findAnyCustomer(tx, scope, customer.id);
  if (!current) return null;
  await repo.updateCustomer(tx, customer.id, {
    email,
    emailVerified: true,
    modifiedAt: clock.now(),
  });
  const data = customerOut((await repo.findAnyCustomer(tx, scope, customer.id))!);
  await recordEvent(tx, clock, {
    organizationId: customer.organizationId,
    type: "customer.updated",
    data,
  });
  return { previous: current.email };
}

export async function deleteCustomer(
  deps: CustomerDeps,
  ctx: AuthContext,
  ref: CustomerRef,
  anonymize: boolean,
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const current = await load(tx, ctx, ref);
    const now = deps.clock.now();
    const values: Parameters<typeof repo.updateCustomer>[2] = { deletedAt: now, modifiedAt: now };
    if (anonymize) {
      const digest = createHash("sha256")
        .update(current.email.toLowerCase())
        .digest("hex")
        .slice(0, 32);
      Object.assign(values, {
        email: `${digest}@anonymized.invalid`,
        name: null,
        billingName: null,
        billingAddress: null,
      });
    }
    await repo.updateCustomer(tx, current.id, values);
    const data = customerOut(
      (await repo.findAnyCustomer(tx, scopeOfResource(current), current.id))!,
    );
    await recordEvent(tx, deps.clock, {
      organizationId: current.organizationId,
      type: "customer.deleted",
      data,
    });
    await revokeBenefitsOfCustomer(tx, { clock: deps.clock, queue: deps.queue ?? null }, current);
  });
}

export async function getCustomerState(deps: CustomerDeps, ctx: AuthContext, ref: CustomerRef) {
  const customer = await load(deps.db, ctx, ref);
  return { ...customerOut(customer), ...(await customerStateExtras(deps, customer)) };
}

export { customerOut };
