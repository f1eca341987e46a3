// The operations that hand out what a seller holds about its customers: the CSV exports of
// customers, orders and subscriptions, and a customer's saved payment methods.
import { z } from "zod";
import {
  customerExportQuery,
  orderExportQuery,
  subscriptionExportQuery,
} from "../modules/exports/schemas.ts";
import { paymentMethodSchema } from "../modules/payments/schemas.ts";
import { idParams, type Operation } from "./registry.ts";

const customersRead = ["customers:read", "customers:write"];

export const customerDataOperations: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/customers/export",
    operationId: "customers:export",
    summary: "Export customers",
    tag: "customers",
    scopes: customersRead,
    query: [customerExportQuery],
    csv: true,
  },
  {
    method: "get",
    path: "/v1/orders/export",
    operationId: "orders:export",
    summary: "Export orders",
    tag: "orders",
    scopes: ["orders:read"],
    query: [orderExportQuery],
    csv: true,
  },
  {
    method: "get",
    path: "/v1/subscriptions/export",
    operationId: "subscriptions:export",
    summary: "Export subscriptions",
    tag: "subscriptions",
    scopes: ["subscriptions:read", "subscriptions:write"],
    query: [subscriptionExportQuery],
    csv: true,
  },
  {
    method: "get",
    path: "/v1/customers/{id}/payment-methods",
    operationId: "customers:list_payment_methods",
    summary: "List customer payment methods",
    tag: "customers",
    scopes: customersRead,
    params: idParams,
    list: paymentMethodSchema,
  },
  {
    method: "get",
    path: "/v1/customers/external/{external_id}/payment-methods",
    operationId: "customers:list_payment_methods_external",
    summary: "List customer payment methods by external ID",
    tag: "customers",
    scopes: customersRead,
    params: z.object({ external_id: z.string().min(1) }),
    list: paymentMethodSchema,
  },
];
