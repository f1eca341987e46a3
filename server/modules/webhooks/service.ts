// Webhook endpoints and the delivery log: create (the server generates the secret), read, update
// (re-enabling a disabled endpoint is a PATCH with enabled=true), delete, reset the secret; list
// deliveries; redeliver one event under the same webhook-id.
import type { Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { eventsOfTypes } from "./delivery-repository.ts";
import type { EventPayload } from "./events.ts";
import { DELIVER_JOB, type DeliverJobData } from "./job-names.ts";
import * as repo from "./repository.ts";
import {
  deliveryOut,
  endpointOut,
  type DeliveryListQuery,
  type EndpointCreate,
  type EndpointUpdate,
} from "./schemas.ts";
import { newWebhookSecret } from "./signing.ts";
import { resolvedUrlProblem, type Resolver } from "./url-policy.ts";

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  resolver: Resolver;
  queue: QueueHandle | null;
}

async function assertUrl(deps: WebhookDeps, url: string): Promise<void> {
  const problem = await resolvedUrlProblem(url, deps.config.mode, deps.resolver);
  if (problem) throw RequestValidationError.field(["body", "url"], problem, "url_parsing");
}

export async function createEndpoint(deps: WebhookDeps, ctx: AuthContext, input: EndpointCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  await assertUrl(deps, input.url);
  const row = await repo.insertEndpoint(deps.db, {
    organizationId,
    url: input.url,
    name: input.name ?? null,
    format: input.format,
    events: [...new Set(input.events)],
    secret: newWebhookSecret(),
    createdAt: deps.clock.now(),
  });
  return endpointOut(row);
}

export async function listEndpoints(
  deps: WebhookDeps,
  ctx: AuthContext,
  filter: string[] | undefined,
  page: Pagination,
) {
  const { rows, total } = await repo.listEndpoints(
    deps.db,
    scopeOfCaller(ctx, filter),
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(endpointOut), total, page);
}

async function ownEndpoint(deps: WebhookDeps, ctx: AuthContext, id: string) {
  const row = await repo.findEndpoint(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Webhook endpoint not found.");
  return row;
}

export async function getEndpoint(deps: WebhookDeps, ctx: AuthContext, id: string) {
  return endpointOut(await ownEndpoint(deps, ctx, id));
}

export async function updateEndpoint(
  deps: WebhookDeps,
  ctx: AuthContext,
  id: string,
  input: EndpointUpdate,
) {
  await ownEndpoint(deps, ctx, id);
  if (input.url) await assertUrl(deps, input.url);
  const values: Parameters<typeof repo.updateEndpoint>[2] = { modifiedAt: deps.clock.now() };
  if (input.url) values.url = input.url;
  if (input.name !== undefined) values.name = input.name;
  if (input.format) values.format = input.format;
  if (input.events) values.events = [...new Set(input.events)];
  if (input.enabled !== undefined && input.enabled !== null) values.enabled = input.enabled;
  return endpointOut(await repo.updateEndpoint(deps.db, id, values));
}

export async function resetSecret(deps: WebhookDeps, ctx: AuthContext, id: string) {
  await ownEndpoint(deps, ctx, id);
  return endpointOut(
    await repo.updateEndpoint(deps.db, id, {
      secret: newWebhookSecret(),
      modifiedAt: deps.clock.now(),
    }),
  );
}

export async function deleteEndpoint(
  deps: WebhookDeps,
  ctx: AuthContext,
  id: string,
): Promise<void> {
  await ownEndpoint(deps, ctx, id);
  await repo.deleteEndpoint(deps.db, id);
}

export async function listDeliveries(
  deps: WebhookDeps,
  ctx: AuthContext,
  filter: DeliveryListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listDeliveries(
    deps.db,
    scopeOfCaller(ctx),
    filter,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(deliveryOut), total, page);
}

export async function redeliverEvent(
  deps: WebhookDeps,
  ctx: AuthContext,
  id: string,
): Promise<void> {
  const event = await repo.findEndpointEvent(deps.db, scopeOfCaller(ctx), id);
  if (!event) throw new ResourceNotFound("Webhook event not found.");
  if (event.archivedAt || event.payload === null)
    throw new ResourceNotFound("Webhook event is archived; its payload is no longer kept.");
  if (!deps.queue) throw new ApiError(503, "ServiceUnavailable", "The job queue is not running.");
  const data: DeliverJobData = { id: event.id, attempt: 0, redeliver: true };
  await deps.queue.send(DELIVER_JOB, data);
}

/**
 * The committed outbox events of `types` in a range NOTIFY announced, in seq order, for live
 * streams of other modules.
 */
export async function committedEvents(
  db: Db,
  organizationId: string,
  types: readonly string[],
  range: { first: number; last: number },
): Promise<EventPayload[]> {
  return eventsOfTypes(db, organizationId, types, range.first, range.last);
}
