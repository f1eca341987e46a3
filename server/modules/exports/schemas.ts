// Query schemas and CSV columns of the three exports, as Polar names and orders them.
import { z } from "zod";
import { isTimeZoneName } from "../../lib/timezone.ts";
import { timestampInput } from "../../lib/wire.ts";
import { queryBoolean, queryList } from "../../lib/query.ts";

const ORDER_STATUSES = ["pending", "paid", "refunded", "partially_refunded", "void"] as const;
const SUBSCRIPTION_STATUSES = [
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
] as const;

/** An IANA zone name the runtime (and so PostgreSQL, which ships the same database) knows. */
const timezone = z.string().default("UTC").refine(isTimeZoneName, { message: "Invalid timezone" });

const datetime = timestampInput.transform((v) => new Date(v));

export const ORDER_HEADERS = {
  email: "Email",
  created_at: "Created At",
  product: "Product",
  net_amount: "Net Amount",
  currency: "Currency",
  status: "Status",
  invoice_number: "Invoice number",
  customer_name: "Customer Name",
  billing_name: "Billing Name",
  billing_country: "Billing Country",
  subtotal_amount: "Subtotal",
  discount_amount: "Discount",
  tax_amount: "Tax",
  total_amount: "Total",
  refunded_amount: "Refunded Amount",
  billing_reason: "Billing Reason",
} as const;
export type OrderColumn = keyof typeof ORDER_HEADERS;
const ORDER_DEFAULT: OrderColumn[] = [
  "email",
  "created_at",
  "product",
  "net_amount",
  "currency",
  "status",
  "invoice_number",
];

export const SUBSCRIPTION_HEADERS = {
  email: "Email",
  started_at: "Started At",
  product: "Product",
  amount: "Amount",
  currency: "Currency",
  status: "Status",
  recurring_interval: "Billing Interval",
  customer_name: "Customer Name",
  billing_name: "Billing Name",
  billing_country: "Billing Country",
  net_amount: "Net Amount",
  discount: "Discount",
  seats: "Seats",
  current_period_start: "Current Period Start",
  current_period_end: "Current Period End",
  cancel_at_period_end: "Cancels At Period End",
  canceled_at: "Canceled At",
  ends_at: "Ends At",
  ended_at: "Ended At",
  cancellation_reason: "Cancellation Reason",
  trial_start: "Trial Start",
  trial_end: "Trial End",
} as const;
export type SubscriptionColumn = keyof typeof SUBSCRIPTION_HEADERS;
const SUBSCRIPTION_DEFAULT: SubscriptionColumn[] = [
  "email",
  "started_at",
  "product",
  "amount",
  "currency",
  "status",
  "recurring_interval",
];

export const CUSTOMER_HEADERS = {
  id: "ID",
  external_id: "External ID",
  created_at: "Created At",
  email: "Email",
  name: "Name",
  tax_id: "Tax ID",
  line1: "Billing Address Line 1",
  line2: "Billing Address Line 2",
  city: "Billing Address City",
  state: "Billing Address State",
  postal_code: "Billing Address Zip",
  country: "Billing Address Country",
  metadata: "Metadata",
} as const;
export type CustomerColumn = keyof typeof CUSTOMER_HEADERS;

const columnList = <T extends string>(names: readonly [T, ...T[]], fallback: T[]) =>
  queryList(z.enum(names))
    .optional()
    .transform((v) => (v?.length ? [...new Set(v)] : fallback));

const keysOf = <T extends object>(o: T) =>
  Object.keys(o) as [keyof T & string, ...(keyof T & string)[]];

export const customerExportQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
});
export type CustomerExportQuery = z.output<typeof customerExportQuery>;

export const orderExportQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(ORDER_STATUSES)).optional(),
  created_after: datetime.optional(),
  created_before: datetime.optional(),
  timezone,
  columns: columnList(keysOf(ORDER_HEADERS), ORDER_DEFAULT),
});
export type OrderExportQuery = z.output<typeof orderExportQuery>;

export const subscriptionExportQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  cancel_at_period_end: queryBoolean.optional(),
  started_after: datetime.optional(),
  started_before: datetime.optional(),
  timezone,
  columns: columnList(keysOf(SUBSCRIPTION_HEADERS), SUBSCRIPTION_DEFAULT),
});
export type SubscriptionExportQuery = z.output<typeof subscriptionExportQuery>;

/** One CSV field as Python's csv module writes it (Polar's exports): quoted only when needed. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvHeader(names: readonly string[]): string {
  return `${names.map(csvField).join(",")}\r\n`;
}
