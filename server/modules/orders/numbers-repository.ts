// SQL for the invoice and receipt counters. A number is taken by bumping a counter row inside the
// transaction that uses it: the row stays locked until that transaction ends, so a rollback gives
// the number back and concurrent documents of one series never share or skip one.
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "../../../db/client.ts";
import { customerDocumentCounters, customers, documentCounters } from "../../../db/schema/index.ts";

export type DocumentKind = "invoice" | "receipt";

/** Takes `n` numbers of the organization's series; answers the last (the first is last - n + 1). */
export async function bumpOrganizationCounter(
  db: Db,
  organizationId: string,
  kind: DocumentKind,
  n: number,
): Promise<number> {
  const [row] = rowsOf<{ last: number }>(
    await db.execute(sql`
      insert into ${documentCounters} as dc (organization_id, kind, last)
      values (${organizationId}, ${kind}, ${n})
      on conflict (organization_id, kind) do update set last = dc.last + ${n}
      returning last`),
  );
  return Number(row!.last);
}

/**
 * Takes `n` numbers of each customer's series, in one statement; answers each customer's last
 * number and short id. The rows are locked in customer id order, so two transactions numbering
 * overlapping sets of customers queue instead of deadlocking.
 */
export async function bumpCustomerCounters(
  db: Db,
  kind: DocumentKind,
  wanted: { customerId: string; n: number }[],
): Promise<Map<string, { last: number; shortId: number }>> {
  const sorted = [...wanted].sort((a, b) => (a.customerId < b.customerId ? -1 : 1));
  const rows = rowsOf<{ customer_id: string; last: number; short_id: string | number }>(
    await db.execute(sql`
      with c as (
        insert into ${customerDocumentCounters} as dc (customer_id, kind, last)
        select w.customer_id, ${kind}, w.n
        from unnest(${`{${sorted.map((w) => w.customerId).join(",")}}`}::uuid[],
                    ${`{${sorted.map((w) => w.n).join(",")}}`}::int[])
          with ordinality as w(customer_id, n, i)
        order by w.i
        on conflict (customer_id, kind) do update set last = dc.last + excluded.last
        returning customer_id, last
      )
      select c.customer_id, c.last, cu.short_id
      from c join ${customers} cu on cu.id = c.customer_id`),
  );
  return new Map(
    rows.map((r) => [r.customer_id, { last: Number(r.last), shortId: Number(r.short_id) }]),
  );
}
