// Polar's disputes API: the seller's list and reads, and accepting (conceding) an open dispute,
// which the processor closes as lost; applying that answer revokes the purchase's benefits.
import { assertAccessible, type AuthContext } from "../../lib/auth-context.ts";
import { ApiError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import type { Db } from "../../../db/client.ts";
import { applyProcessorDispute, type DisputeDeps } from "./apply.ts";
import * as repo from "./repository.ts";
import { disputeOut, type DisputeListQuery } from "./schemas.ts";

export class DisputeNotOpen extends ApiError {
  constructor() {
    super(409, "DisputeNotOpenError", "This dispute is not awaiting a response.");
  }
}

async function render(db: Db, rows: repo.DisputeRow[]) {
  const customers = await customersByIds(db, scopeOfResource(...rows), [
    ...new Set(rows.map((r) => r.customerId)),
  ]);
  const byId = new Map(customers.map((c) => [c.id, c]));
  return rows.map((r) => disputeOut(r, byId.get(r.customerId)!));
}

export async function listDisputes(
  db: Db,
  ctx: AuthContext,
  q: DisputeListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listDisputes(
    db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      orderIds: q.order_id,
      statuses: q.status,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await render(db, rows), total, page);
}

export async function getDispute(db: Db, ctx: AuthContext, id: string) {
  const row = await repo.findDispute(db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Dispute not found.");
  return (await render(db, [row]))[0]!;
}

export async function acceptDispute(deps: DisputeDeps, ctx: AuthContext, id: string) {
  const row = await repo.findDispute(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Dispute not found.");
  assertAccessible(ctx, row.organizationId, "Dispute not found.");
  if (row.status !== "needs_response" || !deps.processor.closeDispute) throw new DisputeNotOpen();
  const closed = await deps.processor.closeDispute(row.processorDisputeId);
  await applyProcessorDispute(deps, row.processor, closed);
  return getDispute(deps.db, ctx, id);
}
