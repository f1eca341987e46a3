// Invoices and receipts of orders (Polar's orders/{id}/invoice, /receipt and PATCH /orders/{id}),
// for the seller and, scoped to their own orders, the customer in the portal. An invoice is made on
// request from any order but a draft or a void one (a pending renewal's too, as Polar), with billing
// name and address, which freeze from then on; a receipt is made the first time it is asked for,
// taking the organization's next receipt number. Both are PDFs kept in file storage and handed out
// as short-lived signed URLs.
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { Readable } from "node:stream";
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { CustomerAddress } from "../../../db/schema/customers.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import type { FileDeps } from "../files/service.ts";
import {
  findOrderRow,
  lockOrder,
  nextReceiptNumber,
  orderForSignedUrl,
  serializeOrders,
  updateOrderRow,
  type OrderRow,
} from "../orders/service.ts";
import { organizationSummary } from "../organizations/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { renderDocument, type DocumentData } from "./pdf.ts";
import type { DocumentLinkOut, OrderBillingUpdate } from "./schemas.ts";

export interface InvoiceDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  files: FileDeps;
  /** How long a document URL works. */
  ttlSeconds: number;
}

/** Whose orders a caller reaches: an organization's, or one customer's within it (the portal). */
export interface OrderScope {
  organizationIds: OrgScope;
  customerId?: string;
}

export type DocumentKind = "invoice" | "receipt";

const PAID = new Set(["paid", "refunded", "partially_refunded"]);
/** As Polar: a draft is not final yet and a void order is never to be paid; any other has one. */
const NOT_INVOICED = new Set(["draft", "void"]);

async function scoped(db: Db, scope: OrderScope, id: string): Promise<OrderRow> {
  const row = await findOrderRow(db, scope.organizationIds, id);
  // A draft is the seller's until finalized: the customer's routes do not find it (as GET does).
  if (!row || (scope.customerId && (row.customerId !== scope.customerId || row.status === "draft")))
    throw new ResourceNotFound("Order not found.");
  return row;
}

async function documentData(
  deps: InvoiceDeps,
  row: OrderRow,
  kind: DocumentKind,
  number: string,
): Promise<DocumentData & { billing: { name: string | null; address: CustomerAddress | null } }> {
  const [[order], seller] = await Promise.all([
    serializeOrders(deps.db, deps.baseUrl, [row]),
    organizationSummary(deps.db, row.organizationId),
  ]);
  const name = row.billingName ?? order!.customer.billing_name ?? null;
  const address = row.billingAddress ?? order!.customer.billing_address ?? null;
  return {
    kind,
    number,
    // The order's date (on its organization's clock), not when the document is rendered.
    issuedAt: row.createdAt,
    seller: { name: seller.name },
    billTo: { name: name ?? order!.customer.email, address, email: order!.customer.email },
    lines: order!.items.map((i) => ({ label: i.label, amount: i.amount })),
    subtotal: row.subtotalAmount,
    discount: row.discountAmount,
    tax: row.taxAmount,
    total: row.totalAmount,
    currency: row.currency,
    ...(kind === "receipt"
      ? { paid: { amount: row.totalAmount, refunded: row.refundedAmount + row.refundedTaxAmount } }
      : {}),
    billing: { name, address },
  };
}

async function store(files: FileDeps, row: OrderRow, kind: DocumentKind, pdf: Buffer) {
  const key = `documents/${row.organizationId}/${row.id}-${kind}`;
  const uploadKey = `document-${row.id}-${randomUUID()}`;
  await files.storage.writePart(uploadKey, 1, Readable.from([pdf]), pdf.length);
  await files.storage.complete(uploadKey, [1], key);
  return key;
}

function signature(secret: string, orderId: string, kind: DocumentKind, expires: string) {
  return createHmac("sha256", `till-document:${secret}`)
    .update(`${orderId}/${kind}/${expires}`)
    .digest("base64url");
}

function documentUrl(deps: InvoiceDeps, orderId: string, kind: DocumentKind): DocumentLinkOut {
  const expires = String(Math.floor(deps.clock.now().getTime() / 1000) + deps.ttlSeconds);
  const sig = signature(deps.files.secret, orderId, kind, expires);
  return {
    url: `${deps.baseUrl}/v1/documents/${orderId}/${kind}.pdf?expires=${expires}&signature=${sig}`,
  };
}

/** POST …/orders/{id}/invoice: makes the invoice once; later calls change nothing. */
export async function generateInvoice(deps: InvoiceDeps, scope: OrderScope, id: string) {
  const row = await scoped(deps.db, scope, id);
  if (row.invoiceFileKey) return;
  if (NOT_INVOICED.has(row.status))
    throw new ApiError(
      409,
      "OrderNotEligibleForInvoice",
      `Order ${row.id} is not eligible for invoice generation (current status: ${row.status}).`,
    );
  const data = await documentData(deps, row, "invoice", row.invoiceNumber ?? row.id);
  if (!data.billing.name || !data.billing.address)
    throw new ApiError(
      422,
      "MissingInvoiceBillingDetails",
      "Billing name and address are required to generate an invoice for this order.",
    );
  const key = await store(deps.files, row, "invoice", await renderDocument(data));
  await inTransaction(deps.db, async (tx) => {
    const locked = (await lockOrder(tx, scopeOfResource(row), id))!;
    if (locked.invoiceFileKey) return;
    const updated = await updateOrderRow(tx, id, {
      invoiceFileKey: key,
      billingName: data.billing.name,
      billingAddress: data.billing.address,
      modifiedAt: deps.clock.now(),
    });
    await emitUpdated(tx, deps, updated);
  });
}

export async function invoiceUrl(deps: InvoiceDeps, scope: OrderScope, id: string) {
  const row = await scoped(deps.db, scope, id);
  if (!row.invoiceFileKey)
    throw new ResourceNotFound("The invoice has not been generated yet: POST to generate it.");
  return documentUrl(deps, row.id, "invoice");
}

/** GET …/orders/{id}/receipt: the receipt, numbered and stored the first time it is asked for. */
export async function receiptUrl(deps: InvoiceDeps, scope: OrderScope, id: string) {
  const row = await scoped(deps.db, scope, id);
  if (!PAID.has(row.status)) throw new ResourceNotFound("Only a paid order has a receipt.");
  if (!row.receiptFileKey)
    await inTransaction(deps.db, async (tx) => {
      const locked = (await lockOrder(tx, scopeOfResource(row), id))!;
      if (locked.receiptFileKey) return;
      const number = locked.receiptNumber ?? (await nextReceiptNumber(tx, locked));
      const data = await documentData({ ...deps, db: tx }, locked, "receipt", number);
      const key = await store(deps.files, locked, "receipt", await renderDocument(data));
      const updated = await updateOrderRow(tx, id, {
        receiptNumber: number,
        receiptFileKey: key,
        modifiedAt: deps.clock.now(),
      });
      await emitUpdated(tx, deps, updated);
    });
  return documentUrl(deps, row.id, "receipt");
}

/** PATCH …/orders/{id}: billing name and address, until the invoice exists. */
export async function updateOrderBilling(
  deps: InvoiceDeps,
  scope: OrderScope,
  id: string,
  input: OrderBillingUpdate,
): Promise<void> {
  const found = await scoped(deps.db, scope, id);
  await inTransaction(deps.db, async (tx) => {
    const row = (await lockOrder(tx, scopeOfResource(found), id))!;
    if (row.invoiceFileKey)
      throw RequestValidationError.field(
        ["body"],
        "The invoice is generated: its billing details can no longer change.",
      );
    const address = input.billing_address;
    const before = row.billingAddress;
    // As Polar: the country and state decided the tax, so they stay.
    if (
      address &&
      before &&
      (address.country !== before.country || (address.state ?? null) !== (before.state ?? null))
    )
      throw RequestValidationError.field(
        ["body", "billing_address"],
        "The country and state of the billing address cannot change.",
      );
    const values: Partial<OrderRow> = { modifiedAt: deps.clock.now() };
    if (input.billing_name !== undefined) values.billingName = input.billing_name;
    if (address !== undefined)
      values.billingAddress = address
        ? {
            line1: address.line1 ?? null,
            line2: address.line2 ?? null,
            postal_code: address.postal_code ?? null,
            city: address.city ?? null,
            state: address.state ?? null,
            country: address.country,
          }
        : null;
    await emitUpdated(tx, deps, await updateOrderRow(tx, id, values));
  });
}

async function emitUpdated(tx: Tx, deps: InvoiceDeps, row: OrderRow) {
  const [data] = await serializeOrders(tx, deps.baseUrl, [row]);
  await recordEvent(tx, deps.clock, {
    organizationId: row.organizationId,
    type: "order.updated",
    data,
  });
}

/** The PDF behind a signed document URL, or null when the URL is not (or no longer) valid. */
export async function openDocument(
  deps: InvoiceDeps,
  orderId: string,
  kind: DocumentKind,
  expires: string,
  given: string,
) {
  if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= deps.clock.now().getTime())
    return null;
  const expected = Buffer.from(signature(deps.files.secret, orderId, kind, expires));
  const sig = Buffer.from(given);
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) return null;
  const row = await orderForSignedUrl(deps.db, orderId);
  const key = kind === "invoice" ? row?.invoiceFileKey : row?.receiptFileKey;
  if (!row || !key) return null;
  const file = await deps.files.storage.open(key);
  return file
    ? { ...file, number: kind === "invoice" ? row.invoiceNumber : row.receiptNumber }
    : null;
}
