// Validate, activate and deactivate a key, as a seller's app does with an organization token and as
// the customer's software does through the public customer-portal routes. A key that is revoked,
// disabled, expired, or does not match the benefit/customer/conditions asked for is a 404 (the
// caller learns nothing about keys it cannot use); activations not enabled or at their limit 403;
// an increment past the usage limit 400. The key row is locked, so racing activations cannot pass
// the limit and usage increments add up.
import { inTransaction } from "../../../db/client.ts";
import { BadRequest, NotPermitted, ResourceNotFound } from "../../lib/errors.ts";
import * as repo from "./repository.ts";
import {
  activationBaseOut,
  type ActivationReadOut,
  type LicenseKeyActivate,
  type LicenseKeyDeactivate,
  type LicenseKeyValidate,
  type ValidatedLicenseKeyOut,
} from "./schemas.ts";
import { renderKey, type LicenseKeyDeps } from "./service.ts";

const NOT_FOUND = "License key not found.";

async function usableKey(
  tx: Parameters<typeof repo.lockKeyByText>[0],
  deps: LicenseKeyDeps,
  organizationId: string,
  key: string,
) {
  const row = await repo.lockKeyByText(tx, organizationId, key);
  if (row?.status !== "granted") throw new ResourceNotFound(NOT_FOUND);
  if (row.expiresAt && row.expiresAt.getTime() <= deps.clock.now().getTime())
    throw new ResourceNotFound("License key has expired.");
  return row;
}

function sameConditions(
  a: Record<string, unknown>,
  b: Record<string, unknown> | undefined,
): boolean {
  const given = b ?? {};
  const keys = Object.keys(a);
  return keys.length === Object.keys(given).length && keys.every((k) => given[k] === a[k]);
}

export async function validateLicenseKey(
  deps: LicenseKeyDeps,
  input: LicenseKeyValidate,
): Promise<ValidatedLicenseKeyOut> {
  return inTransaction(deps.db, async (tx) => {
    const row = await usableKey(tx, deps, input.organization_id, input.key);
    if (
      (input.benefit_id && input.benefit_id !== row.benefitId) ||
      (input.customer_id && input.customer_id !== row.customerId)
    )
      throw new ResourceNotFound(NOT_FOUND);
    let activation = null;
    if (input.activation_id) {
      activation = await repo.findActivation(tx, row.id, input.activation_id);
      if (!activation) throw new ResourceNotFound("License key activation not found.");
      if (
        Object.keys(activation.conditions).length > 0 &&
        !sameConditions(activation.conditions, input.conditions)
      )
        throw new ResourceNotFound("License key does not match the required conditions.");
    }
    const increment = input.increment_usage ?? 0;
    if (increment > 0 && row.limitUsage !== null && row.usage + increment > row.limitUsage) {
      throw new BadRequest(
        `License key only has ${Math.max(0, row.limitUsage - row.usage)} more usages.`,
      );
    }
    const now = deps.clock.now();
    const updated = await repo.updateKey(tx, row.id, {
      usage: row.usage + increment,
      validations: row.validations + 1,
      lastValidatedAt: now,
    });
    return {
      ...(await renderKey(tx, updated)),
      activation: activation ? activationBaseOut(activation) : null,
    };
  });
}

export async function activateLicenseKey(
  deps: LicenseKeyDeps,
  input: LicenseKeyActivate,
): Promise<ActivationReadOut> {
  return inTransaction(deps.db, async (tx) => {
    const row = await usableKey(tx, deps, input.organization_id, input.key);
    if (row.limitActivations === null)
      throw new NotPermitted(
        "This license key does not support activations. Use the /validate endpoint instead.",
      );
    if ((await repo.countActivations(tx, row.id)) >= row.limitActivations)
      throw new NotPermitted("License key activation limit already reached.");
    const activation = await repo.insertActivation(tx, {
      licenseKeyId: row.id,
      label: input.label,
      meta: input.meta ?? {},
      conditions: input.conditions ?? {},
      createdAt: deps.clock.now(),
    });
    return { ...activationBaseOut(activation), license_key: await renderKey(tx, row) };
  });
}

export async function deactivateLicenseKey(
  deps: LicenseKeyDeps,
  input: LicenseKeyDeactivate,
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const row = await repo.lockKeyByText(tx, input.organization_id, input.key);
    if (!row) throw new ResourceNotFound(NOT_FOUND);
    const activation = await repo.findActivation(tx, row.id, input.activation_id);
    if (!activation) throw new ResourceNotFound("License key activation not found.");
    await repo.deleteActivation(tx, activation.id);
  });
}
