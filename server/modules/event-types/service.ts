// Event types: the names seen in a seller's ingested events, with counts, first and last seen, and
// a label the seller can set.
import type { Db } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import * as repo from "./repository.ts";
import {
  eventTypeOut,
  eventTypeWithStatsOut,
  type EventTypeListQuery,
  type EventTypeUpdate,
} from "./schemas.ts";

export interface EventTypeDeps {
  db: Db;
  clock: Clock;
}

export async function listEventTypes(
  deps: EventTypeDeps,
  ctx: AuthContext,
  q: EventTypeListQuery,
  page: Pagination,
) {
  const scope = scopeOfCaller(ctx, q.organization_id);
  // Names are registered when first listed rather than on every ingest, which stays one insert.
  await repo.registerNames(deps.db, scope, deps.clock.now());
  const { rows, total } = await repo.listEventTypes(
    deps.db,
    {
      scope,
      customerIds: q.customer_id,
      externalCustomerIds: q.external_customer_id,
      query: q.query,
      rootEvents: q.root_events,
      parentId: q.parent_id,
      source: q.source,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(eventTypeWithStatsOut), total, page);
}

export async function updateEventType(
  deps: EventTypeDeps,
  ctx: AuthContext,
  id: string,
  input: EventTypeUpdate,
) {
  const current = await repo.findEventType(deps.db, scopeOfCaller(ctx), id);
  if (!current) throw new ResourceNotFound("Event type not found.");
  const row = await repo.updateEventType(deps.db, current.id, {
    label: input.label,
    ...(input.label_property_selector !== undefined
      ? { labelPropertySelector: input.label_property_selector }
      : {}),
    modifiedAt: deps.clock.now(),
  });
  return eventTypeOut(row);
}
