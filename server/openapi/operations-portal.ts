// The customer portal's own models: the customer, their subscriptions, orders, meters and license
// keys, as the buyer sees them with a customer session (no seller metadata, the seller's organization embedded).
import { customerCustomerSessionSchema } from "../modules/customer-sessions/schemas.ts";
import {
  benefitIdQuery,
  portalAuthenticatedUserSchema,
  portalCustomerSchema,
  portalCustomerUpdate,
  portalOrderListQuery,
  portalOrderSchema,
  portalSubscriptionListQuery,
  portalSubscriptionSchema,
  portalSubscriptionUpdate,
} from "../modules/customer-portal/schemas.ts";
import { customerMeterListQuery, portalCustomerMeterSchema } from "../modules/grants/schemas.ts";
import {
  licenseKeySchema,
  licenseKeyWithActivationsSchema,
} from "../modules/license-keys/schemas.ts";
import {
  orderBillingUpdate,
  orderInvoiceSchema,
  orderReceiptSchema,
} from "../modules/invoices/schemas.ts";
import { idParams, type Operation } from "./registry.ts";

const tag = "customer_portal";
const subscriptions = "/v1/customer-portal/subscriptions";
const orders = "/v1/customer-portal/orders";

const portalOps: Operation[] = [
  {
    method: "get",
    path: "/v1/customer-portal/customer-session/introspect",
    operationId: "customer_portal:customer-session:introspect",
    summary: "Introspect customer session",
    tag,
    response: customerCustomerSessionSchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/customer-session/user",
    operationId: "customer_portal:customer-session:get_authenticated_user",
    summary: "Get authenticated portal user",
    tag,
    response: portalAuthenticatedUserSchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/meters/",
    operationId: "customer_portal:customer_meters:list",
    summary: "List meters",
    tag,
    query: [customerMeterListQuery],
    list: portalCustomerMeterSchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/meters/{id}",
    operationId: "customer_portal:customer_meters:get",
    summary: "Get customer meter",
    tag,
    params: idParams,
    response: portalCustomerMeterSchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/license-keys/",
    operationId: "customer_portal:license_keys:list",
    summary: "List license keys",
    tag,
    query: [benefitIdQuery],
    list: licenseKeySchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/license-keys/{id}",
    operationId: "customer_portal:license_keys:get",
    summary: "Get license key",
    tag,
    params: idParams,
    response: licenseKeyWithActivationsSchema,
  },
  {
    method: "get",
    path: "/v1/customer-portal/customers/me",
    operationId: "customer_portal:customers:get",
    summary: "Get customer",
    tag,
    response: portalCustomerSchema,
  },
  {
    method: "patch",
    path: "/v1/customer-portal/customers/me",
    operationId: "customer_portal:customers:update",
    summary: "Update customer",
    tag,
    body: portalCustomerUpdate,
    response: portalCustomerSchema,
  },
  {
    method: "get",
    path: `${subscriptions}/`,
    operationId: "customer_portal:subscriptions:list",
    summary: "List subscriptions",
    tag,
    query: [portalSubscriptionListQuery],
    list: portalSubscriptionSchema,
  },
  {
    method: "get",
    path: `${subscriptions}/{id}`,
    operationId: "customer_portal:subscriptions:get",
    summary: "Get subscription",
    tag,
    params: idParams,
    response: portalSubscriptionSchema,
  },
  {
    method: "patch",
    path: `${subscriptions}/{id}`,
    operationId: "customer_portal:subscriptions:update",
    summary: "Update subscription",
    tag,
    params: idParams,
    body: portalSubscriptionUpdate,
    response: portalSubscriptionSchema,
  },
  {
    method: "delete",
    path: `${subscriptions}/{id}`,
    operationId: "customer_portal:subscriptions:cancel",
    summary: "Cancel subscription",
    tag,
    params: idParams,
    response: portalSubscriptionSchema,
  },
  {
    method: "get",
    path: `${orders}/`,
    operationId: "customer_portal:orders:list",
    summary: "List orders",
    tag,
    query: [portalOrderListQuery],
    list: portalOrderSchema,
  },
  {
    method: "get",
    path: `${orders}/{id}`,
    operationId: "customer_portal:orders:get",
    summary: "Get order",
    tag,
    params: idParams,
    response: portalOrderSchema,
  },
  {
    method: "patch",
    path: `${orders}/{id}`,
    operationId: "customer_portal:orders:update",
    summary: "Update order",
    tag,
    params: idParams,
    body: orderBillingUpdate,
    response: portalOrderSchema,
  },
  {
    method: "post",
    path: `${orders}/{id}/invoice`,
    operationId: "customer_portal:orders:generate_invoice",
    summary: "Generate order invoice",
    tag,
    params: idParams,
    status: 202,
  },
  {
    method: "get",
    path: `${orders}/{id}/invoice`,
    operationId: "customer_portal:orders:invoice",
    summary: "Get order invoice",
    tag,
    params: idParams,
    response: orderInvoiceSchema,
  },
  {
    method: "get",
    path: `${orders}/{id}/receipt`,
    operationId: "customer_portal:orders:receipt",
    summary: "Get order receipt",
    tag,
    params: idParams,
    response: orderReceiptSchema,
  },
];

export const portalOperations: readonly Operation[] = portalOps.map((op) => ({
  ...op,
  auth: "customer_session",
  scopes: ["customer_portal:read", "customer_portal:write"],
}));
