// CSV exports of customers, orders and subscriptions, streamed to a writable in keyset batches.
// The next batch is read while the previous one drains, and nothing more is read until the socket
// has taken it, so memory stays near two batches whatever the row count or the client's speed.
import type { Writable } from "node:stream";
import type { Db } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import {
  CUSTOMER_HEADERS,
  csvHeader,
  ORDER_HEADERS,
  SUBSCRIPTION_HEADERS,
  type CustomerExportQuery,
  type OrderExportQuery,
  type SubscriptionExportQuery,
} from "./schemas.ts";

export interface ExportDeps {
  /** Exports read a replica when there is one: a file a few moments behind the primary is fine. */
  db: Db;
  /** Rows per database read. */
  batchSize?: number;
}

export interface CsvExport {
  filename: string;
  header: string;
  read(after: repo.Cursor | null): Promise<repo.Batch>;
}

const BATCH = 50_000;
const AHEAD = 3;

/** Writes the export to `out`; resolves when done or when `out` went away. */
export async function writeCsv(out: Writable, csv: CsvExport): Promise<void> {
  // One listener for the whole file: a listener added per wait would pile up on a stream that
  // forwards them (the compression middleware does) and never takes them off.
  let wake: (() => void) | null = null;
  const resume = () => {
    wake?.();
    wake = null;
  };
  out.on("drain", resume);
  out.on("close", resume);
  const write = async (chunk: string | Buffer) => {
    if (out.write(chunk) || out.destroyed) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  };
  await write(csv.header);
  // Up to AHEAD batches are read while one is written: the database's reads run side by side,
  // and memory stays near AHEAD + 1 batches whatever the row count or the client's speed.
  const ahead: Promise<repo.Batch>[] = [csv.read(null)];
  let last: Promise<repo.Batch> = ahead[0]!;
  let more = true;
  const refill = async () => {
    while (more && ahead.length < AHEAD) {
      const next = (await last).next;
      if (!next) {
        more = false;
        break;
      }
      last = csv.read(next);
      ahead.push(last);
    }
  };
  try {
    while (!out.destroyed) {
      await refill();
      const batch = ahead.shift();
      if (!batch) break;
      for (const piece of await (await batch).data) await write(piece);
    }
  } finally {
    out.off("drain", resume);
    out.off("close", resume);
    // Reads left in flight when the client went away must not surface as unhandled rejections.
    for (const b of ahead) b.then((x) => x.data).catch(() => {});
  }
}

/** The batch of a caller who may read no organization: nothing, and nothing after it. */
const noRows = (): Promise<repo.Batch> =>
  Promise.resolve({ data: Promise.resolve([]), next: null });

const dated = (name: string, bounds: (Date | undefined)[], tz: string) => {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone: tz, dateStyle: "short" });
  const parts = bounds.filter((d): d is Date => d !== undefined).map((d) => day.format(d));
  return `${[name, ...parts].join("-")}.csv`;
};

export function customersCsv(
  deps: ExportDeps,
  ctx: AuthContext,
  q: CustomerExportQuery,
): CsvExport {
  const scope = scopeOfCaller(ctx, q.organization_id);
  return {
    filename: "polar-customers.csv",
    header: csvHeader(Object.values(CUSTOMER_HEADERS)),
    read: (after) =>
      scope.length ? repo.customerBatch(deps.db, scope, after, deps.batchSize ?? BATCH) : noRows(),
  };
}

export function ordersCsv(deps: ExportDeps, ctx: AuthContext, q: OrderExportQuery): CsvExport {
  const filter: repo.OrderExportFilter = {
    scope: scopeOfCaller(ctx, q.organization_id),
    productIds: q.product_id,
    statuses: q.status,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
  };
  return {
    filename: dated("polar-orders", [q.created_after, q.created_before], q.timezone),
    header: csvHeader(q.columns.map((c) => ORDER_HEADERS[c])),
    read: (after) =>
      filter.scope.length
        ? repo.orderBatch(deps.db, filter, q.columns, q.timezone, after, deps.batchSize ?? BATCH)
        : noRows(),
  };
}

export function subscriptionsCsv(
  deps: ExportDeps,
  ctx: AuthContext,
  q: SubscriptionExportQuery,
): CsvExport {
  const filter: repo.SubscriptionExportFilter = {
    scope: scopeOfCaller(ctx, q.organization_id),
    productIds: q.product_id,
    statuses: q.status,
    cancelAtPeriodEnd: q.cancel_at_period_end,
    startedAfter: q.started_after,
    startedBefore: q.started_before,
  };
  return {
    filename: dated("polar-subscriptions", [q.started_after, q.started_before], q.timezone),
    header: csvHeader(q.columns.map((c) => SUBSCRIPTION_HEADERS[c])),
    read: (after) =>
      filter.scope.length
        ? repo.subscriptionBatch(
            deps.db,
            filter,
            q.columns,
            q.timezone,
            after,
            deps.batchSize ?? BATCH,
          )
        : noRows(),
  };
}
