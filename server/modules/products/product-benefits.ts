// Setting the benefits a product grants: a benefit taken off the product has its grants from this
// product revoked. Apart from service.ts because it reaches the grants module, which reads
// products itself.
import { inTransaction } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { benefitsOf } from "../benefits/service.ts";
import { revokeBenefitsRemovedFromProduct } from "../grants/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { serializeProduct } from "./serialize.ts";
import * as repo from "./repository.ts";
import { ownProduct, type ProductDeps } from "./service.ts";

export async function updateProductBenefits(
  deps: ProductDeps,
  ctx: AuthContext,
  id: string,
  benefitIds: string[],
) {
  const current = await ownProduct(deps, ctx, id);
  const found = new Set(
    (await benefitsOf(deps.db, scopeOfResource(current), benefitIds)).map((b) => b.id),
  );
  const bad = benefitIds.findIndex((b) => !found.has(b));
  if (bad >= 0)
    throw RequestValidationError.field(
      ["body", "benefits", bad],
      "Benefit not found in this organization.",
    );
  return inTransaction(deps.db, async (tx) => {
    // Updating the product's row first holds its lock: a second update of the same product waits
    // here, then reads the links the first wrote, where both used to insert the same links (500).
    const row = await repo.updateProduct(tx, id, { modifiedAt: deps.clock.now() });
    const before = (await repo.benefitLinksOf(tx, scopeOfResource(current), [id])).map(
      (l) => l.benefitId,
    );
    await repo.setBenefits(tx, id, [...new Set(benefitIds)]);
    await revokeBenefitsRemovedFromProduct(
      tx,
      { clock: deps.clock, queue: deps.queue ?? null },
      current,
      before.filter((b) => !benefitIds.includes(b)),
    );
    const data = await serializeProduct(tx, deps.baseUrl, row);
    await recordEvent(tx, deps.clock, {
      organizationId: current.organizationId,
      type: "product.updated",
      data,
    });
    return data;
  });
}
