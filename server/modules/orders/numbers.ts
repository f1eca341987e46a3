// Invoice and receipt numbers. Per customer (order_settings.invoice_numbering = "customer", Polar's
// default): PREFIX-SHORTID-0001, the customer's short id as eight letters, so orders of different
// customers never wait for one counter. Per organization: PREFIX-0001, one series. Receipts carry
// an R before the count. The prefix comes from the organization's slug. Numbers are taken in the
// caller's transaction and are gapless: a rollback gives them back.
import type { Db } from "../../../db/client.ts";
import { documentNumberingOf } from "../organizations/queries.ts";
import * as repo from "./numbers-repository.ts";
import {
  insertOrderOnce as insertOrderOnceUnnumbered,
  insertOrder as insertOrderUnnumbered,
  insertOrdersOnce,
  setInvoiceNumber,
  type OrderRow,
} from "./repository.ts";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A customer's short id as Polar shows it: base 26 in letters, padded to eight with A. */
export function shortIdText(shortId: number): string {
  let text = "";
  for (let n = shortId; n > 0; n = Math.floor(n / 26)) text = LETTERS[n % 26] + text;
  return text.padStart(8, "A");
}

/**
 * The next numbers of one organization's documents, one per entry of `customerIds` (the customer
 * each document is for, repeats allowed), in the order given.
 */
export async function takeDocumentNumbers(
  db: Db,
  organizationId: string,
  kind: repo.DocumentKind,
  customerIds: string[],
): Promise<string[]> {
  if (customerIds.length === 0) return [];
  const { numbering, prefix } = await documentNumberingOf(db, organizationId);
  const count = (n: number) => `${kind === "receipt" ? "R" : ""}${String(n).padStart(4, "0")}`;
  if (numbering === "organization") {
    const last = await repo.bumpOrganizationCounter(db, organizationId, kind, customerIds.length);
    const first = last - customerIds.length + 1;
    return customerIds.map((_, i) => `${prefix}-${count(first + i)}`);
  }
  const wanted = new Map<string, number>();
  for (const id of customerIds) wanted.set(id, (wanted.get(id) ?? 0) + 1);
  const counters = await repo.bumpCustomerCounters(
    db,
    kind,
    [...wanted].map(([customerId, n]) => ({ customerId, n })),
  );
  const next = new Map([...wanted].map(([id, n]) => [id, counters.get(id)!.last - n + 1]));
  return customerIds.map((id) => {
    const n = next.get(id)!;
    next.set(id, n + 1);
    return `${prefix}-${shortIdText(counters.get(id)!.shortId)}-${count(n)}`;
  });
}

/** The next number of one document. */
export async function takeDocumentNumber(
  db: Db,
  order: Pick<OrderRow, "organizationId" | "customerId">,
  kind: repo.DocumentKind,
): Promise<string> {
  return (await takeDocumentNumbers(db, order.organizationId, kind, [order.customerId]))[0]!;
}

async function numbered(db: Db, order: OrderRow): Promise<OrderRow> {
  const invoiceNumber = await takeDocumentNumber(db, order, "invoice");
  await setInvoiceNumber(db, order.id, invoiceNumber);
  return { ...order, invoiceNumber };
}

/** Inserts an order with its items and gives it its invoice number. */
export async function insertOrder(...args: Parameters<typeof insertOrderUnnumbered>) {
  const { order, items } = await insertOrderUnnumbered(...args);
  return { order: await numbered(args[0], order), items };
}

/**
 * Inserts the order unless one with its billing key exists (a renewal run twice, by a retried job
 * or a second worker): null then, nothing written and no number taken.
 */
export async function insertOrderOnce(...args: Parameters<typeof insertOrderOnceUnnumbered>) {
  const inserted = await insertOrderOnceUnnumbered(...args);
  if (!inserted) return null;
  return { order: await numbered(args[0], inserted.order), items: inserted.items };
}

/**
 * insertOrdersOnce of orders that are all new, of one organization, each given its next invoice
 * number in the order given. The caller calls it as late as it can in its transaction: the counter
 * rows stay locked from here to commit. An order whose billing key exists would leave a gap in the
 * numbers, so one throws instead, and the caller's transaction rolls back.
 */
export async function insertNumberedOrders(db: Db, list: Parameters<typeof insertOrdersOnce>[1]) {
  if (list.length === 0) return { orders: [], items: [] };
  const organizationIds = new Set(list.map((l) => l.values.organizationId));
  if (organizationIds.size !== 1) throw new Error("insertNumberedOrders takes one organization");
  const numbers = await takeDocumentNumbers(
    db,
    list[0]!.values.organizationId,
    "invoice",
    list.map((l) => l.values.customerId),
  );
  const inserted = await insertOrdersOnce(
    db,
    list.map((l, i) => ({ ...l, values: { ...l.values, invoiceNumber: numbers[i]! } })),
  );
  if (inserted.orders.length !== list.length)
    throw new Error(
      `${list.length - inserted.orders.length} of ${list.length} orders were made before: not numbered`,
    );
  return inserted;
}
