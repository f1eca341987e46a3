// Usage events: ingest batches all-or-nothing (every event is validated before one INSERT writes
// the batch; duplicates by external_id are counted, not errors), and read them back.
import { randomUUID } from "node:crypto";
import type { SQL } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { offsetOfOrganization } from "../sandbox-clock/queries.ts";
import {
  RequestValidationError,
  ResourceNotFound,
  type ValidationIssue,
} from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds, resolveCustomerRefs } from "../customers/queries.ts";
import { membersByIds } from "../members/queries.ts";
import { moveCustomerRollups } from "../meters/rollups.ts";
import { meterFilterFor } from "../meters/service.ts";
import { filterCondition } from "./filter.ts";
import * as repo from "./repository.ts";
import {
  eventNameOut,
  eventOut,
  type EventCreate,
  type EventListQuery,
  type EventNamesQuery,
  type EventRecord,
} from "./schemas.ts";

export interface EventDeps {
  db: Db;
  /** Event lists read a replica when there is one; ingest and a single event read `db`. */
  read: Db;
  clock: Clock;
  /** In sandbox mode an event without a timestamp takes its organization's sandbox clock's. */
  sandbox?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function ingestEvents(deps: EventDeps, ctx: AuthContext, input: EventCreate[]) {
  if (input.length === 0) return { inserted: 0, duplicates: 0 };
  const now = deps.clock.now();
  const issues: ValidationIssue[] = [];
  const rows: repo.EventInsert[] = input.map((e, i) => ({
    id: randomUUID(),
    organizationId: organizationForWrite(ctx, e.organization_id, [
      "body",
      "events",
      i,
      "organization_id",
    ]),
    name: e.name,
    source: "user",
    timestamp: e.timestamp ? new Date(e.timestamp) : now,
    ingestedAt: now,
    customerId: e.customer_id ?? null,
    externalCustomerId: e.external_customer_id ?? null,
    memberId: e.member_id ?? null,
    externalMemberId: e.external_member_id ?? null,
    externalId: e.external_id ?? null,
    metadata: e.metadata ?? {},
  }));

  for (const organizationId of new Set(rows.map((r) => r.organizationId))) {
    const mine = rows
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => r.organizationId === organizationId);
    await resolveCustomers(deps.db, organizationId, mine, issues);
    await resolveMembers(deps.db, organizationId, mine, issues);
    await resolveParents(deps.db, organizationId, mine, input, issues);
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
  if (deps.sandbox) await stampOnSandboxClocks(deps, rows, input);
  const inserted = await repo.insertEvents(deps.db, rows);
  return { inserted, duplicates: rows.length - inserted };
}

/**
 * Usage sent without a timestamp happens "now" on the organization's clock: once a seller has moved
 * the sandbox clock ahead, real time is before the period being billed, and the usage would never
 * be billed.
 */
async function stampOnSandboxClocks(
  deps: EventDeps,
  rows: repo.EventInsert[],
  input: EventCreate[],
): Promise<void> {
  const offsets = new Map<string, number>();
  for (const organizationId of new Set(rows.map((r) => r.organizationId)))
    offsets.set(organizationId, await offsetOfOrganization(deps.db, organizationId));
  rows.forEach((r, i) => {
    const offset = offsets.get(r.organizationId)!;
    if (!input[i]!.timestamp && offset !== 0)
      r.timestamp = new Date(r.timestamp.getTime() + offset);
  });
}

type Indexed = { r: repo.EventInsert; i: number }[];

/** Events by customer_id must name a live customer of the organization; they carry its external id. */
async function resolveCustomers(
  db: Db,
  organizationId: string,
  mine: Indexed,
  issues: ValidationIssue[],
) {
  const ids = [
    ...new Set(mine.map(({ r }) => r.customerId).filter((id): id is string => Boolean(id))),
  ];
  if (ids.length === 0) return;
  const found = new Map(
    // The events' organization was proven by organizationForWrite.
    (await resolveCustomerRefs(db, scopeOfResource({ organizationId }), ids, [])).map((c) => [
      c.id,
      c.externalId,
    ]),
  );
  for (const { r, i } of mine) {
    if (!r.customerId) continue;
    if (!found.has(r.customerId))
      issues.push({
        loc: ["body", "events", i, "customer_id"],
        msg: "Customer not found.",
        type: "value_error",
      });
    else r.externalCustomerId = found.get(r.customerId) ?? null;
  }
}

/**
 * member_id names a member of the organization, as Polar checks; and of the event's customer's
 * team when it names one, so usage is never attributed across customers.
 */
async function resolveMembers(
  db: Db,
  organizationId: string,
  mine: Indexed,
  issues: ValidationIssue[],
) {
  const ids = [...new Set(mine.map(({ r }) => r.memberId).filter((id): id is string => !!id))];
  if (ids.length === 0) return;
  // The events' organization was proven by organizationForWrite.
  const found = new Map(
    (await membersByIds(db, scopeOfResource({ organizationId }), ids)).map((m) => [
      m.id,
      m.customerId,
    ]),
  );
  for (const { r, i } of mine) {
    if (!r.memberId) continue;
    const team = found.get(r.memberId);
    const msg = !team
      ? "Member not found."
      : r.customerId && team !== r.customerId
        ? "The member is not on this customer's team."
        : null;
    if (msg) issues.push({ loc: ["body", "events", i, "member_id"], msg, type: "value_error" });
  }
}

/** parent_id is an event id or an external id, of a stored event or of an earlier one in the batch. */
async function resolveParents(
  db: Db,
  organizationId: string,
  mine: Indexed,
  input: EventCreate[],
  issues: ValidationIssue[],
) {
  const wanted = mine.filter(({ i }) => input[i]!.parent_id);
  if (wanted.length === 0) return;
  const known = new Map<string, string>();
  for (const { r } of mine) {
    known.set(r.id!, r.id!);
    if (r.externalId) known.set(r.externalId, r.id!);
  }
  const refs = wanted.map(({ i }) => input[i]!.parent_id!).filter((p) => !known.has(p));
  const stored = await repo.findParents(
    db,
    // The events' organization was proven by organizationForWrite.
    scopeOfResource({ organizationId }),
    refs.filter((p) => UUID.test(p)),
    refs,
  );
  for (const p of stored) {
    known.set(p.id, p.id);
    if (p.externalId) known.set(p.externalId, p.id);
  }
  for (const { r, i } of wanted) {
    const parent = known.get(input[i]!.parent_id!);
    if (!parent)
      issues.push({
        loc: ["body", "events", i, "parent_id"],
        msg: "Parent event not found.",
        type: "value_error",
      });
    else r.parentId = parent;
  }
}

/** Runs inside the caller's transaction: the meter rollups move with the events they count. */
export async function linkCustomerEvents(
  db: Tx,
  organizationId: string,
  customerId: string,
  externalId: string,
) {
  await moveCustomerRollups(db, organizationId, customerId, externalId);
  await repo.linkCustomerEvents(db, organizationId, customerId, externalId);
}

async function withCustomers(db: Db, rows: EventRecord[]) {
  const ids = [...new Set(rows.map((r) => r.customerId).filter((id): id is string => Boolean(id)))];
  const byId = new Map(
    (await customersByIds(db, scopeOfResource(...rows), ids)).map((c) => [c.id, c]),
  );
  return rows.map((r) => eventOut(r, (r.customerId && byId.get(r.customerId)) || null));
}

export async function getEvent(deps: EventDeps, ctx: AuthContext, id: string) {
  const row = await repo.findEvent(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Event not found.");
  return (await withCustomers(deps.db, [row]))[0]!;
}

export async function listEvents(
  deps: EventDeps,
  ctx: AuthContext,
  q: EventListQuery,
  metadata: Record<string, string[]>,
  page: Pagination,
) {
  const scope = scopeOfCaller(ctx, q.organization_id);
  const conditions: SQL[] = [];
  if (q.filter) conditions.push(filterCondition(q.filter));
  if (q.meter_id)
    conditions.push(filterCondition(await meterFilterFor(deps.db, scope, q.meter_id)));
  const filter: repo.EventFilter = {
    customerIds: q.customer_id,
    externalCustomerIds: q.external_customer_id,
    names: q.name,
    sources: q.source,
    query: q.query,
    start: q.start_timestamp ? new Date(q.start_timestamp) : undefined,
    end: q.end_timestamp ? new Date(q.end_timestamp) : undefined,
    parentId: q.parent_id,
    conditions,
    metadata,
  };
  const descending = q.sorting[0]?.desc ?? true;
  const { rows, total } = await repo.listEvents(
    deps.read,
    scope,
    filter,
    descending,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await withCustomers(deps.read, rows), total, page);
}

export async function listEventNames(
  deps: EventDeps,
  ctx: AuthContext,
  q: EventNamesQuery,
  page: Pagination,
) {
  const filter: repo.EventFilter = {
    customerIds: q.customer_id,
    externalCustomerIds: q.external_customer_id,
    sources: q.source,
    query: q.query,
    conditions: [],
    metadata: {},
  };
  const { rows, total } = await repo.listEventNames(
    deps.read,
    scopeOfCaller(ctx, q.organization_id),
    filter,
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(eventNameOut), total, page);
}
