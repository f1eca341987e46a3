// The operations the OpenAPI document describes, grouped as Polar tags them. Each names the
// schemas its route parses and the model it answers with; test/contract/openapi.test.ts checks
// that each one is served by the router and compares it with Polar's contract.
import { z } from "zod";
import {
  benefitCreate,
  benefitListQuery,
  benefitSchema,
  benefitUpdate,
} from "../modules/benefits/schemas.ts";
import {
  customerCreate,
  customerListQuery,
  customerSchema,
  customerUpdate,
  customerUpdateByExternalId,
  deleteQuery,
} from "../modules/customers/schemas.ts";
import {
  discountCreate,
  discountListQuery,
  discountSchema,
  discountUpdate,
} from "../modules/discounts/schemas.ts";
import {
  eventListQuery,
  eventNameSchema,
  eventNamesQuery,
  eventSchema,
  eventsIngest,
} from "../modules/events/schemas.ts";
import {
  licenseKeyDeactivate,
  licenseKeyListQuery,
  licenseKeySchema,
  licenseKeyUpdate,
  licenseKeyWithActivationsSchema,
} from "../modules/license-keys/schemas.ts";
import {
  meterCreate,
  meterListQuery,
  meterSchema,
  meterUpdate,
} from "../modules/meters/schemas.ts";
import { orderListQuery, orderSchema } from "../modules/orders/schemas.ts";
import {
  productBenefitsUpdate,
  productCreate,
  productListQuery,
  productSchema,
  productUpdate,
} from "../modules/products/schemas.ts";
import { refundCreate, refundListQuery, refundSchema } from "../modules/refunds/schemas.ts";
import { subscriptionCreate } from "../modules/subscriptions/create-free.ts";
import {
  subscriptionListQuery,
  subscriptionSchema,
  subscriptionUpdate,
} from "../modules/subscriptions/schemas.ts";
import {
  deliveryListQuery,
  deliverySchema,
  endpointCreate,
  endpointListQuery,
  endpointSchema,
  endpointUpdate,
} from "../modules/webhooks/schemas.ts";
import { type Operation, operation } from "./registry.ts";

const idParams = z.object({ id: z.uuid() });
const externalParams = z.object({ external_id: z.string().min(1) });
// Polar's metadata filter: `?metadata[key]=value`, read by lib/metadata.ts.
const metadataFilter = z.object({
  metadata: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .optional()
    .meta({ description: "Filter by metadata: metadata[key]=value, repeatable." }),
});

interface Crud {
  tag: string;
  /** Collection path without the trailing slash: `/v1/products`. */
  base: string;
  /** Polar's operationId prefix: `products`. */
  prefix: string;
  noun: string;
  model: z.ZodType;
  scope: string;
  list?: z.ZodObject[];
  create?: z.ZodType;
  update?: z.ZodType;
  remove?: boolean;
}

/** Polar's usual five: list, create, get, update, delete (the ones the resource has). */
function crud(c: Crud): Operation[] {
  const read = [`${c.scope}:read`, `${c.scope}:write`];
  const write = [`${c.scope}:write`];
  const item = `${c.base}/{id}`;
  const ops: Operation[] = [];
  if (c.list)
    ops.push({
      method: "get",
      path: `${c.base}/`,
      operationId: `${c.prefix}:list`,
      summary: `List ${c.noun}s`,
      tag: c.tag,
      scopes: read,
      query: c.list,
      list: c.model,
    });
  if (c.create)
    ops.push({
      method: "post",
      path: `${c.base}/`,
      operationId: `${c.prefix}:create`,
      summary: `Create ${c.noun}`,
      tag: c.tag,
      scopes: write,
      body: c.create,
      response: c.model,
      status: 201,
    });
  ops.push({
    method: "get",
    path: item,
    operationId: `${c.prefix}:get`,
    summary: `Get ${c.noun}`,
    tag: c.tag,
    scopes: read,
    params: idParams,
    response: c.model,
  });
  if (c.update)
    ops.push({
      method: "patch",
      path: item,
      operationId: `${c.prefix}:update`,
      summary: `Update ${c.noun}`,
      tag: c.tag,
      scopes: write,
      params: idParams,
      body: c.update,
      response: c.model,
    });
  if (c.remove)
    ops.push({
      method: "delete",
      path: item,
      operationId: `${c.prefix}:delete`,
      summary: `Delete ${c.noun}`,
      tag: c.tag,
      scopes: write,
      params: idParams,
      status: 204,
    });
  return ops;
}

export const operations: readonly Operation[] = [
  ...crud({
    tag: "products",
    base: "/v1/products",
    prefix: "products",
    noun: "product",
    model: productSchema,
    scope: "products",
    list: [productListQuery, metadataFilter],
    create: productCreate,
    update: productUpdate,
  }),
  operation({
    method: "post",
    path: "/v1/products/{id}/benefits",
    operationId: "products:update_benefits",
    summary: "Update product benefits",
    tag: "products",
    scopes: ["products:write"],
    params: idParams,
    body: productBenefitsUpdate,
    response: productSchema,
  }),
  ...crud({
    tag: "benefits",
    base: "/v1/benefits",
    prefix: "benefits",
    noun: "benefit",
    model: benefitSchema,
    scope: "benefits",
    list: [benefitListQuery, metadataFilter],
    create: benefitCreate,
    update: benefitUpdate,
    remove: true,
  }),
  ...crud({
    tag: "customers",
    base: "/v1/customers",
    prefix: "customers",
    noun: "customer",
    model: customerSchema,
    scope: "customers",
    list: [customerListQuery, metadataFilter],
    create: customerCreate,
    update: customerUpdate,
  }),
  operation({
    method: "delete",
    path: "/v1/customers/{id}",
    operationId: "customers:delete",
    summary: "Delete customer",
    tag: "customers",
    scopes: ["customers:write"],
    params: idParams,
    query: [deleteQuery],
    status: 204,
  }),
  operation({
    method: "get",
    path: "/v1/customers/external/{external_id}",
    operationId: "customers:get_external",
    summary: "Get customer by external ID",
    tag: "customers",
    scopes: ["customers:read", "customers:write"],
    params: externalParams,
    response: customerSchema,
  }),
  operation({
    method: "patch",
    path: "/v1/customers/external/{external_id}",
    operationId: "customers:update_external",
    summary: "Update customer by external ID",
    tag: "customers",
    scopes: ["customers:write"],
    params: externalParams,
    body: customerUpdateByExternalId,
    response: customerSchema,
  }),
  operation({
    method: "delete",
    path: "/v1/customers/external/{external_id}",
    operationId: "customers:delete_external",
    summary: "Delete customer by external ID",
    tag: "customers",
    scopes: ["customers:write"],
    params: externalParams,
    query: [deleteQuery],
    status: 204,
  }),
  ...crud({
    tag: "orders",
    base: "/v1/orders",
    prefix: "orders",
    noun: "order",
    model: orderSchema,
    scope: "orders",
    list: [orderListQuery, metadataFilter],
  }),
  ...crud({
    tag: "subscriptions",
    base: "/v1/subscriptions",
    prefix: "subscriptions",
    noun: "subscription",
    model: subscriptionSchema,
    scope: "subscriptions",
    list: [subscriptionListQuery, metadataFilter],
    create: subscriptionCreate,
    update: subscriptionUpdate,
  }),
  operation({
    method: "delete",
    path: "/v1/subscriptions/{id}",
    operationId: "subscriptions:revoke",
    summary: "Revoke subscription",
    tag: "subscriptions",
    scopes: ["subscriptions:write"],
    params: idParams,
    response: subscriptionSchema,
  }),
  ...crud({
    tag: "discounts",
    base: "/v1/discounts",
    prefix: "discounts",
    noun: "discount",
    model: discountSchema,
    scope: "discounts",
    list: [discountListQuery, metadataFilter],
    create: discountCreate,
    update: discountUpdate,
    remove: true,
  }),
  ...crud({
    tag: "meters",
    base: "/v1/meters",
    prefix: "meters",
    noun: "meter",
    model: meterSchema,
    scope: "meters",
    list: [meterListQuery, metadataFilter],
    create: meterCreate,
    update: meterUpdate,
  }),
  ...crud({
    tag: "refunds",
    base: "/v1/refunds",
    prefix: "refunds",
    noun: "refund",
    model: refundSchema,
    scope: "refunds",
    list: [refundListQuery, metadataFilter],
    create: refundCreate,
  }).filter((op) => op.method !== "get" || op.path.endsWith("/")),
  operation({
    method: "get",
    path: "/v1/license-keys/",
    operationId: "license_keys:list",
    summary: "List license keys",
    tag: "license_keys",
    scopes: ["license_keys:read", "license_keys:write"],
    query: [licenseKeyListQuery],
    list: licenseKeySchema,
  }),
  operation({
    method: "get",
    path: "/v1/license-keys/{id}",
    operationId: "license_keys:get",
    summary: "Get license key",
    tag: "license_keys",
    scopes: ["license_keys:read", "license_keys:write"],
    params: idParams,
    response: licenseKeyWithActivationsSchema,
  }),
  operation({
    method: "patch",
    path: "/v1/license-keys/{id}",
    operationId: "license_keys:update",
    summary: "Update license key",
    tag: "license_keys",
    scopes: ["license_keys:write"],
    params: idParams,
    body: licenseKeyUpdate,
    response: licenseKeySchema,
  }),
  operation({
    method: "post",
    path: "/v1/license-keys/deactivate",
    operationId: "license_keys:deactivate",
    summary: "Deactivate license key",
    tag: "license_keys",
    scopes: ["license_keys:write"],
    body: licenseKeyDeactivate,
    status: 204,
  }),
  operation({
    method: "get",
    path: "/v1/events/",
    operationId: "events:list",
    summary: "List events",
    tag: "events",
    scopes: ["events:read", "events:write"],
    query: [eventListQuery, metadataFilter],
    list: eventSchema,
  }),
  operation({
    method: "get",
    path: "/v1/events/names",
    operationId: "events:list_names",
    summary: "List event names",
    tag: "events",
    scopes: ["events:read", "events:write"],
    query: [eventNamesQuery],
    list: eventNameSchema,
  }),
  operation({
    method: "get",
    path: "/v1/events/{id}",
    operationId: "events:get",
    summary: "Get event",
    tag: "events",
    scopes: ["events:read", "events:write"],
    params: idParams,
    response: eventSchema,
  }),
  operation({
    method: "post",
    path: "/v1/events/ingest",
    operationId: "events:ingest",
    summary: "Ingest events",
    tag: "events",
    scopes: ["events:write"],
    body: eventsIngest,
    response: z.object({ inserted: z.number().int(), duplicates: z.number().int() }),
  }),
  ...crud({
    tag: "webhooks",
    base: "/v1/webhooks/endpoints",
    prefix: "webhooks",
    noun: "webhook endpoint",
    model: endpointSchema,
    scope: "webhooks",
    list: [endpointListQuery],
    create: endpointCreate,
    update: endpointUpdate,
    remove: true,
  }).map((op) => ({
    ...op,
    // Polar's endpoint paths have no trailing slash, and its operationIds name the model.
    path: op.path.replace(/\/$/, ""),
    operationId: `webhooks:${op.operationId.split(":")[1]}_webhook_endpoint${op.operationId.endsWith("list") ? "s" : ""}`,
  })),
  operation({
    method: "patch",
    path: "/v1/webhooks/endpoints/{id}/secret",
    operationId: "webhooks:reset_webhook_endpoint_secret",
    summary: "Reset webhook endpoint secret",
    tag: "webhooks",
    scopes: ["webhooks:write"],
    params: idParams,
    response: endpointSchema,
  }),
  operation({
    method: "get",
    path: "/v1/webhooks/deliveries",
    operationId: "webhooks:list_webhook_deliveries",
    summary: "List webhook deliveries",
    tag: "webhooks",
    scopes: ["webhooks:read", "webhooks:write"],
    query: [deliveryListQuery],
    list: deliverySchema,
  }),
];
