// Validate, activate and deactivate a key, as a seller's app does with an organization token and as
// the customer's software does through the public customer-portal routes. A key that is revoked,
// disabled, expired, or does not match the benefit/customer/conditions asked for is a 404 (the
// caller learns nothing about keys it cannot use); activations not enabled or at their limit 403;
// an increment past the usage limit 400. The key row is locked, so racing activations cannot pass
// the limit and usage increments add up.
import { type Tx, inTransaction } from "../../../db/client.ts";
import { BadRequest, NotPermitted, ResourceNotFound } from "../../lib/errors.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import {
  activationBaseOut,
  type ActivationReadOut,
  type LicenseKeyActivate,
  type LicenseKeyDeactivate,
  type LicenseKeyValidate,
  type ValidatedLicenseKeyOut,
} from "./schemas.ts";
import { serializeKey, type LicenseKeyDeps } from "./service.ts";

const NOT_FOUND = "License key not found.";

/**
 * Whose key the text is looked up among: a seller's token, the organizations it proves narrowed by
 * the body's organization_id (another organization's key is not found); or, for the customer's
 * software, the key holder, whose key text is the credential.
 */
export type KeyLookup = { scope: OrgScope } | "key-holder";

function lockKey(tx: Tx, by: KeyLookup, input: { organization_id: string; key: string }) {
  return by === "key-holder"
    ? repo.lockKeyByTextForKeyHolder(tx, input.organization_id, input.key)
    : repo.lockKeyByText(tx, by.scope, input.key);
}

async function usableKey(
  tx: Tx,
  deps: LicenseKeyDeps,
  by: KeyLookup,
  input: { organization_id: string; key: string },
) {
  const row = await lockKey(tx, by, input);
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
  by: KeyLookup,
  input: LicenseKeyValidate,
): Promise<ValidatedLicenseKeyOut> {
  return inTransaction(deps.db, async (tx) => {
    const row = await usableKey(tx, deps, by, input);
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
      ...(await serializeKey(tx, updated)),
      activation: activation ? activationBaseOut(activation) : null,
    };
  });
}

export async function activateLicenseKey(
  deps: LicenseKeyDeps,
  by: KeyLookup,
  input: LicenseKeyActivate,
): Promise<ActivationReadOut> {
  return inTransaction(deps.db, async (tx) => {
    const row = await usableKey(tx, deps, by, input);
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
    return { ...activationBaseOut(activation), license_key: await serializeKey(tx, row) };
  });
}

export async function deactivateLicenseKey(
  deps: LicenseKeyDeps,
  by: KeyLookup,
  input: LicenseKeyDeactivate,
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const row = await lockKey(tx, by, input);
    if (!row) throw new ResourceNotFound(NOT_FOUND);
    const activation = await repo.findActivation(tx, row.id, input.activation_id);
    if (!activation) throw new ResourceNotFound("License key activation not found.");
    await repo.deleteActivation(tx, activation.id);
  });
}
