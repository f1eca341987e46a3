// Benefits: create, list, read, update and soft-delete what a purchase grants, recording
// benefit.created / benefit.updated in the same transaction as the change.
import { inTransaction, type Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller, type OrgScope } from "../../lib/org-scope.ts";
import type { MetadataFilter } from "../../lib/metadata.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import type { BenefitPropertiesInput } from "./properties.ts";
import { resolveProperties } from "./resolve-properties.ts";
import * as repo from "./repository.ts";
import {
  benefitOut,
  type BenefitCreate,
  type BenefitListQuery,
  type BenefitUpdate,
} from "./schemas.ts";

export interface BenefitDeps {
  db: Db;
  clock: Clock;
  /** Signs and verifies Discord guild tokens. */
  secret: string;
  /** Deleting a benefit queues the revocation of its grants. */
  queue?: QueueHandle | null;
}

export async function createBenefit(deps: BenefitDeps, ctx: AuthContext, input: BenefitCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const properties = await resolveProperties(
    deps.db,
    deps.secret,
    organizationId,
    input as BenefitPropertiesInput,
  );
  return inTransaction(deps.db, async (tx) => {
    const row = await repo.insertBenefit(tx, {
      organizationId,
      type: input.type,
      description: input.description,
      visibility: input.visibility ?? "public",
      properties,
      metadata: input.metadata ?? {},
      createdAt: deps.clock.now(),
    });
    const data = benefitOut(row);
    await recordEvent(tx, deps.clock, { organizationId, type: "benefit.created", data });
    return data;
  });
}

export async function listBenefits(
  deps: BenefitDeps,
  ctx: AuthContext,
  query: BenefitListQuery,
  metadata: MetadataFilter,
  page: Pagination,
) {
  const { rows, total } = await repo.listBenefits(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    {
      types: query.type,
      ids: query.id,
      excludeIds: query.exclude_id,
      query: query.query,
      metadata,
    },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(benefitOut), total, page);
}

export async function ownBenefit(deps: BenefitDeps, ctx: AuthContext, id: string) {
  const row = await repo.findBenefit(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Benefit not found.");
  return row;
}

export async function getBenefit(deps: BenefitDeps, ctx: AuthContext, id: string) {
  return benefitOut(await ownBenefit(deps, ctx, id));
}

export async function updateBenefit(
  deps: BenefitDeps,
  ctx: AuthContext,
  id: string,
  input: BenefitUpdate,
) {
  const current = await ownBenefit(deps, ctx, id);
  if (input.type !== current.type) {
    throw RequestValidationError.field(
      ["body", "type"],
      `The type of a benefit cannot be changed (it is ${current.type}).`,
    );
  }
  const values: Parameters<typeof repo.updateBenefit>[2] = { modifiedAt: deps.clock.now() };
  if (input.description) values.description = input.description;
  if (input.visibility) values.visibility = input.visibility;
  if (input.metadata) values.metadata = input.metadata;
  if (input.properties) {
    values.properties = await resolveProperties(deps.db, deps.secret, current.organizationId, {
      type: input.type,
      properties: input.properties,
    } as BenefitPropertiesInput);
  }
  return inTransaction(deps.db, async (tx) => {
    const data = benefitOut(await repo.updateBenefit(tx, id, values));
    await recordEvent(tx, deps.clock, {
      organizationId: current.organizationId,
      type: "benefit.updated",
      data,
    });
    return data;
  });
}

// For other modules.

/** The live benefits among `ids` in the scope. */
export function benefitsOf(db: Db, scope: OrgScope, ids: string[]) {
  return repo.findBenefits(db, scope, ids);
}

/** Live benefits in the scope by id, rendered as the API returns them. */
export async function serializeBenefitsByIds(db: Db, scope: OrgScope, ids: string[]) {
  return (await repo.findBenefits(db, scope, ids)).map(benefitOut);
}

/** Benefits in the scope by id as rows, deleted ones included: what grants were granted from. */
export function benefitRowsByIds(db: Db, scope: OrgScope, ids: string[]) {
  return repo.benefitsByIds(db, scope, ids);
}
