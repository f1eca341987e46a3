// Meters: a filter over usage events and an aggregation that turns them into a quantity. Reads of
// quantities run entirely in SQL (see quantities.ts).
import type { Db } from "../../../db/client.ts";
import type { MeterFilter } from "../../../db/schema/index.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { type OrgScope, scopeOfCaller } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { meterQuantities } from "./rollup-read.ts";
import * as repo from "./repository.ts";
import {
  meterOut,
  type MeterCreate,
  type MeterListQuery,
  type MeterUpdate,
  type MeterQuantitiesOut,
  type QuantitiesQuery,
} from "./schemas.ts";

export interface MeterDeps {
  db: Db;
  /**
   * Quantities aggregate events: a replica when there is one. The meter definition itself is read
   * from `db`, so a meter just created or changed is never a 404 or answered with its old filter.
   */
  read: Db;
  clock: Clock;
}

export async function listMeters(
  deps: MeterDeps,
  ctx: AuthContext,
  q: MeterListQuery,
  metadata: Record<string, string[]>,
  page: Pagination,
) {
  const { rows, total } = await repo.listMeters(
    deps.db,
    scopeOfCaller(ctx, q.organization_id),
    { query: q.query, isArchived: q.is_archived, metadata },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(meterOut), total, page);
}

async function load(deps: MeterDeps, ctx: AuthContext, id: string) {
  const row = await repo.findMeter(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Meter not found.");
  return row;
}

export async function getMeter(deps: MeterDeps, ctx: AuthContext, id: string) {
  return meterOut(await load(deps, ctx, id));
}

export async function createMeter(deps: MeterDeps, ctx: AuthContext, input: MeterCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const row = await repo.insertMeter(deps.db, {
    organizationId,
    name: input.name,
    unit: input.unit,
    customLabel: input.custom_label ?? null,
    customMultiplier: input.custom_multiplier ?? null,
    filter: input.filter,
    aggregation: input.aggregation,
    metadata: input.metadata ?? {},
    createdAt: deps.clock.now(),
  });
  return meterOut(row);
}

export async function updateMeter(
  deps: MeterDeps,
  ctx: AuthContext,
  id: string,
  input: MeterUpdate,
) {
  const current = await load(deps, ctx, id);
  const now = deps.clock.now();
  const values: Parameters<typeof repo.updateMeter>[2] = { modifiedAt: now };
  if (input.name) values.name = input.name;
  if (input.unit) values.unit = input.unit;
  if (input.custom_label !== undefined) values.customLabel = input.custom_label;
  if (input.custom_multiplier !== undefined) values.customMultiplier = input.custom_multiplier;
  if (input.filter) values.filter = input.filter;
  if (input.aggregation) values.aggregation = input.aggregation;
  if (input.metadata !== undefined) values.metadata = input.metadata;
  if (input.is_archived === true && !current.archivedAt) values.archivedAt = now;
  if (input.is_archived === false) values.archivedAt = null;
  if (
    (values.unit ?? current.unit) === "custom" &&
    !(values.customLabel !== undefined ? values.customLabel : current.customLabel)
  ) {
    throw RequestValidationError.field(["body", "custom_label"], "Required when unit is custom.");
  }
  return meterOut(await repo.updateMeter(deps.db, current.id, values));
}

// Meter definitions already read, per database: a quantities read then takes one statement, which
// checks in its own snapshot that the definition is unchanged and falls back to a fresh read if not.
const definitions = new WeakMap<Db, Map<string, repo.MeterRow>>();
const DEFINITIONS_KEPT = 1000;

function remember(db: Db, row: repo.MeterRow): void {
  let byId = definitions.get(db);
  if (!byId) {
    byId = new Map();
    definitions.set(db, byId);
  }
  byId.delete(row.id);
  byId.set(row.id, row);
  if (byId.size > DEFINITIONS_KEPT) byId.delete(byId.keys().next().value!);
}

export async function getQuantities(
  deps: MeterDeps,
  ctx: AuthContext,
  id: string,
  q: QuantitiesQuery,
  metadata: Record<string, string[]>,
): Promise<MeterQuantitiesOut> {
  const input = (meter: repo.MeterRow) => ({
    meterId: meter.id,
    organizationId: meter.organizationId,
    filter: meter.filter,
    aggregation: meter.aggregation,
    start: new Date(q.start_timestamp),
    end: new Date(q.end_timestamp),
    interval: q.interval,
    timezone: q.timezone,
    customerIds: q.customer_id,
    externalCustomerIds: q.external_customer_id,
    metadata,
  });
  const known = definitions.get(deps.db)?.get(id);
  if (known && scopeOfCaller(ctx).includes(known.organizationId)) {
    const quantities = await meterQuantities(
      deps.read,
      input(known),
      repo.definitionUnchanged(known),
    );
    if (quantities) return quantities;
  }
  const meter = await load(deps, ctx, id);
  remember(deps.db, meter);
  return (await meterQuantities(deps.read, input(meter)))!;
}

/** The filter of a meter the caller can read, for GET /v1/events/?meter_id=…; unknown is a 422. */
export async function meterFilterFor(db: Db, scope: OrgScope, id: string): Promise<MeterFilter> {
  const row = await repo.findMeter(db, scope, id);
  if (!row) throw RequestValidationError.field(["query", "meter_id"], "Meter not found.");
  return row.filter;
}
