// Custom fields: create, list, read, update and delete a seller's checkout questions. The slug is
// unique within an organization, and a field's type never changes once created.
import type { Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import type { Clock } from "../../lib/clock.ts";
import { isUniqueViolation } from "../../lib/db-errors.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import * as repo from "./repository.ts";
import {
  customFieldOut,
  type CustomFieldCreate,
  type CustomFieldListQuery,
  type CustomFieldUpdate,
} from "./schemas.ts";

export interface CustomFieldDeps {
  db: Db;
  clock: Clock;
}

const slugTakenError = () =>
  RequestValidationError.field(["body", "slug"], "A custom field with this slug already exists.");

export async function createCustomField(
  deps: CustomFieldDeps,
  ctx: AuthContext,
  input: CustomFieldCreate,
) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  if (await repo.slugTaken(deps.db, scopeOfResource({ organizationId }), input.slug))
    throw slugTakenError();
  try {
    const row = await repo.insertCustomField(deps.db, {
      organizationId,
      type: input.type,
      slug: input.slug,
      name: input.name,
      properties: input.properties,
      metadata: input.metadata ?? {},
      createdAt: deps.clock.now(),
    });
    return customFieldOut(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTakenError();
    throw err;
  }
}

export async function listCustomFields(
  deps: CustomFieldDeps,
  ctx: AuthContext,
  query: CustomFieldListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listCustomFields(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    { query: query.query, types: query.type },
    query.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(customFieldOut), total, page);
}

async function ownCustomField(deps: CustomFieldDeps, ctx: AuthContext, id: string) {
  const row = await repo.findCustomField(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Custom field not found.");
  return row;
}

export async function getCustomField(deps: CustomFieldDeps, ctx: AuthContext, id: string) {
  return customFieldOut(await ownCustomField(deps, ctx, id));
}

export async function updateCustomField(
  deps: CustomFieldDeps,
  ctx: AuthContext,
  id: string,
  input: CustomFieldUpdate,
) {
  const current = await ownCustomField(deps, ctx, id);
  if (input.type !== current.type) {
    throw RequestValidationError.field(
      ["body", "type"],
      `The type of a custom field cannot be changed (it is ${current.type}).`,
    );
  }
  const values: Parameters<typeof repo.updateCustomField>[2] = { modifiedAt: deps.clock.now() };
  if (input.slug && input.slug !== current.slug) {
    if (await repo.slugTaken(deps.db, scopeOfResource(current), input.slug, id))
      throw slugTakenError();
    values.slug = input.slug;
  }
  if (input.name) values.name = input.name;
  if (input.properties) values.properties = input.properties;
  if (input.metadata) values.metadata = input.metadata;
  try {
    return customFieldOut(await repo.updateCustomField(deps.db, id, values));
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTakenError();
    throw err;
  }
}

export async function deleteCustomField(
  deps: CustomFieldDeps,
  ctx: AuthContext,
  id: string,
): Promise<void> {
  await ownCustomField(deps, ctx, id);
  await repo.deleteCustomField(deps.db, id);
}

// For other modules.

/** The custom fields among `ids` in the scope. */
export function customFieldsOf(db: Db, scope: OrgScope, ids: string[]) {
  return repo.findCustomFields(db, scope, ids);
}

/** Custom fields by id in the scope, rendered as the API returns them. */
export async function serializeCustomFieldsByIds(db: Db, scope: OrgScope, ids: string[]) {
  return (await repo.findCustomFields(db, scope, ids)).map(customFieldOut);
}
