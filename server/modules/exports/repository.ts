// SQL for the CSV exports. PostgreSQL renders each row as a finished CSV line (quoting, amounts,
// dates in the asked time zone) and a batch's lines as one value, so the server only passes bytes on.
// Rows are read in keyset batches (newest first), so memory stays flat however many rows match.
import { type SQL, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import type { CustomerColumn, OrderColumn, SubscriptionColumn } from "./schemas.ts";

export interface Cursor {
  at: string;
  id: string;
}
export interface Batch {
  /** Finished CSV lines, each ended by CRLF, in pieces; may still be on their way. */
  data: Promise<string[]>;
  /** Where the next batch starts; known before `data` arrives. */
  next: Cursor | null;
}

/** Text quoted as Python's csv module does (only when it holds a comma, quote or line break). */
const q = (expr: SQL): SQL =>
  sql`(case when ${expr} ~ '[",\r\n]' then '"' || replace(${expr}, '"', '""') || '"' else ${expr} end)`;

/** Cents as Python prints `cents / 100`: 10.0, 19.99, 0.05. */
const money = (expr: SQL): SQL =>
  sql`(case when ${expr} % 100 = 0 then (${expr} / 100)::text || '.0' else (${expr}::float8 / 100)::text end)`;

/** An instant as Python's `astimezone(tz).isoformat()`, e.g. 2026-01-02T03:04:05.000000+01:00. */
function time(expr: SQL, tz: string): SQL {
  const local = sql`(${expr} at time zone ${tz})`;
  const utc = sql`(${expr} at time zone 'UTC')`;
  if (tz === "UTC") return sql`(to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00')`;
  return sql`(to_char(${local}, 'YYYY-MM-DD"T"HH24:MI:SS.US')
    || case when ${local} >= ${utc} then '+' else '-' end
    || to_char(greatest(${local} - ${utc}, ${utc} - ${local}), 'HH24:MI'))`;
}

function line(fields: SQL[]): SQL {
  return sql.join(
    fields.map((f) => sql`coalesce(${f}, '')`),
    sql` || ',' || `,
  );
}

function inList(column: SQL, values: readonly string[] | undefined): SQL | null {
  if (!values?.length) return null;
  return sql`${column} in (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** The rows of the scope's organizations; an empty scope matches none (no filter would match all). */
function inScope(column: SQL, scope: OrgScope): SQL {
  return inList(column, scope) ?? sql`false`;
}

interface Query {
  select: SQL;
  /** The rows' table alone (the boundary read needs no join). */
  base: SQL;
  from: SQL;
  conds: (SQL | null)[];
  key: { at: SQL; id: SQL };
}

/** Lines per piece of a batch: about 100 KB of text for a typical order line. */
const PIECE = 1000;

/**
 * The next `size` rows after the cursor, newest first. The batch's last key is read first (an
 * index-only walk of `size` entries) and answered at once, so the caller can start the batches
 * after it before this one arrived; the rows down to it come as finished lines joined in order by
 * the database, in pieces of PIECE lines.
 */
async function readBatch(db: Db, query: Query, after: Cursor | null, size: number): Promise<Batch> {
  const { key } = query;
  const where = query.conds.filter((c): c is SQL => c !== null);
  // The bare `<=` lets the (organization_id, created_at, id) index start at the cursor.
  if (after)
    where.push(
      sql`${key.at} <= ${after.at}::timestamptz and (${key.at}, ${key.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`,
    );
  const order = sql`order by ${key.at} desc, ${key.id} desc`;
  const [last] = await queryRows<{ k_at: string; k_id: string }>(
    db,
    sql`select ${key.at}::text as k_at, ${key.id}::text as k_id from ${query.base}
    where ${sql.join(where, sql` and `)} ${order} offset ${size - 1} limit 1`,
  );
  if (last)
    where.push(sql`(${key.at}, ${key.id}) >= (${last.k_at}::timestamptz, ${last.k_id}::uuid)`);
  // ARRAY(subquery) keeps the subquery's order, which a plain aggregate would not promise. The
  // lines come back in pieces of PIECE lines: strings that small die young in the server's heap,
  // where one string per batch would cost a full garbage collection each. (`offset 0` keeps the
  // array built once: unnested, each use of it would build it again.)
  const lines = sql`select array_to_string(b.lines[i:i + ${PIECE - 1}], '') as v
    from (select array(
      select ${query.select} || E'\r\n' from ${query.from}
      where ${sql.join(where, sql` and `)} ${order}
    ) as lines offset 0) b, generate_series(1, cardinality(b.lines), ${PIECE}) i
    order by i`;
  const data = queryRows<{ v: string }>(db, lines).then((rows) => rows.map((r) => r.v));
  // Awaited only when its turn to be written comes: a failure meanwhile must not count as
  // unhandled (which would end the process); the await still sees it.
  data.catch(() => {});
  return { data, next: last ? { at: last.k_at, id: last.k_id } : null };
}

export interface OrderExportFilter {
  scope: OrgScope;
  productIds?: string[] | undefined;
  statuses?: string[] | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
}

function orderColumn(c: OrderColumn, tz: string): SQL {
  switch (c) {
    case "email":
      return q(sql`c.email`);
    case "created_at":
      return time(sql`o.created_at`, tz);
    case "product":
      return q(sql`p.name`);
    case "net_amount":
    case "subtotal_amount":
    case "discount_amount":
    case "tax_amount":
    case "total_amount":
    case "refunded_amount":
      return money(sql.raw(`o.${c}`));
    case "currency":
      return sql`o.currency`;
    case "status":
      return sql`o.status`;
    case "invoice_number":
      return q(sql`o.invoice_number`);
    case "customer_name":
      return q(sql`c.name`);
    case "billing_name":
      return q(sql`o.billing_name`);
    case "billing_country":
      return q(sql`(o.billing_address ->> 'country')`);
    case "billing_reason":
      return sql`o.billing_reason`;
  }
}

export function orderBatch(
  db: Db,
  f: OrderExportFilter,
  columns: OrderColumn[],
  tz: string,
  after: Cursor | null,
  size: number,
): Promise<Batch> {
  return readBatch(
    db,
    {
      select: line(columns.map((c) => orderColumn(c, tz))),
      base: sql`orders o`,
      from: sql`orders o join customers c on c.id = o.customer_id left join products p on p.id = o.product_id`,
      conds: [
        inScope(sql`o.organization_id`, f.scope),
        inList(sql`o.product_id`, f.productIds),
        inList(sql`o.status`, f.statuses),
        f.createdAfter ? sql`o.created_at > ${f.createdAfter.toISOString()}::timestamptz` : null,
        f.createdBefore ? sql`o.created_at < ${f.createdBefore.toISOString()}::timestamptz` : null,
      ],
      key: { at: sql`o.created_at`, id: sql`o.id` },
    },
    after,
    size,
  );
}

export interface SubscriptionExportFilter {
  scope: OrgScope;
  productIds?: string[] | undefined;
  statuses?: string[] | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  startedAfter?: Date | undefined;
  startedBefore?: Date | undefined;
}

function subscriptionColumn(c: SubscriptionColumn, tz: string): SQL {
  switch (c) {
    case "email":
      return q(sql`c.email`);
    case "product":
      return q(sql`p.name`);
    case "amount":
    case "net_amount":
      return money(sql`s.amount`);
    case "currency":
      return sql`s.currency`;
    case "status":
      return sql`s.status`;
    case "recurring_interval":
      return sql`(case when s.recurring_interval_count = 1 then s.recurring_interval
        else s.recurring_interval_count::text || ' ' || s.recurring_interval || 's' end)`;
    case "customer_name":
      return q(sql`c.name`);
    case "billing_name":
      return q(sql`c.billing_name`);
    case "billing_country":
      return q(sql`(c.billing_address ->> 'country')`);
    case "discount":
      return q(sql`coalesce(d.code, d.name)`);
    case "seats":
    case "trial_start":
    case "trial_end":
      return sql`null::text`;
    case "cancel_at_period_end":
      return sql`s.cancel_at_period_end::text`;
    case "cancellation_reason":
      return sql`s.customer_cancellation_reason`;
    case "started_at":
    case "current_period_start":
    case "current_period_end":
    case "canceled_at":
    case "ends_at":
    case "ended_at":
      return time(sql.raw(`s.${c}`), tz);
  }
}

export function subscriptionBatch(
  db: Db,
  f: SubscriptionExportFilter,
  columns: SubscriptionColumn[],
  tz: string,
  after: Cursor | null,
  size: number,
): Promise<Batch> {
  return readBatch(
    db,
    {
      select: line(columns.map((c) => subscriptionColumn(c, tz))),
      base: sql`subscriptions s`,
      from: sql`subscriptions s join customers c on c.id = s.customer_id
        join products p on p.id = s.product_id left join discounts d on d.id = s.discount_id`,
      conds: [
        inScope(sql`s.organization_id`, f.scope),
        inList(sql`s.product_id`, f.productIds),
        inList(sql`s.status`, f.statuses),
        f.cancelAtPeriodEnd === undefined
          ? null
          : sql`s.cancel_at_period_end = ${f.cancelAtPeriodEnd}`,
        f.startedAfter ? sql`s.started_at > ${f.startedAfter.toISOString()}::timestamptz` : null,
        f.startedBefore ? sql`s.started_at < ${f.startedBefore.toISOString()}::timestamptz` : null,
      ],
      key: { at: sql`s.created_at`, id: sql`s.id` },
    },
    after,
    size,
  );
}

const CUSTOMER_FIELDS: Record<CustomerColumn, SQL> = {
  id: sql`c.id::text`,
  external_id: q(sql`c.external_id`),
  created_at: time(sql`c.created_at`, "UTC"),
  email: q(sql`c.email`),
  name: q(sql`c.name`),
  tax_id: q(sql`(c.tax_id ->> 0)`),
  line1: q(sql`(c.billing_address ->> 'line1')`),
  line2: q(sql`(c.billing_address ->> 'line2')`),
  city: q(sql`(c.billing_address ->> 'city')`),
  state: q(sql`(c.billing_address ->> 'state')`),
  postal_code: q(sql`(c.billing_address ->> 'postal_code')`),
  country: q(sql`(c.billing_address ->> 'country')`),
  metadata: q(sql`(case when c.metadata = '{}'::jsonb then null else c.metadata::text end)`),
};

export function customerBatch(
  db: Db,
  scope: OrgScope,
  after: Cursor | null,
  size: number,
): Promise<Batch> {
  return readBatch(
    db,
    {
      select: line(Object.values(CUSTOMER_FIELDS)),
      base: sql`customers c`,
      from: sql`customers c`,
      conds: [inScope(sql`c.organization_id`, scope), sql`c.deleted_at is null`],
      key: { at: sql`c.created_at`, id: sql`c.id` },
    },
    after,
    size,
  );
}
