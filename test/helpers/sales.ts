// Customers, orders and subscriptions of one organization written straight in SQL (generate_series),
// for exports and benchmarks that need many rows without running checkouts.
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";

export interface SeededSales {
  productId: string;
  customerIds: string[];
}

/**
 * One product, `customers` customers and `orders` orders spread over them, one minute apart and
 * ending at `until`; every tenth order refunded. With `subscriptions`, that many monthly ones too.
 */
export async function seedSales(
  database: Database,
  organizationId: string,
  opts: {
    customers: number;
    orders: number;
    subscriptions?: number;
    until?: Date;
    product?: string;
  },
): Promise<SeededSales> {
  const until = (opts.until ?? new Date("2026-06-01T00:00:00Z")).toISOString();
  const [product] = await database.rows<{ id: string }>(sql`
    insert into products (organization_id, name) values (${organizationId}, ${opts.product ?? "Pro plan"})
    returning id`);
  const customers = await database.rows<{ id: string }>(sql`
    insert into customers (organization_id, email, name, created_at)
    select ${organizationId}, 'buyer' || i || '@example.com', 'Buyer ' || i,
           ${until}::timestamptz - (i || ' minutes')::interval
    from generate_series(1, ${opts.customers}) i
    returning id`);
  const ids = customers.map((c) => c.id);
  await database.rows(sql`
    insert into orders (organization_id, customer_id, product_id, status, billing_reason,
      subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, currency, created_at,
      invoice_number)
    select ${organizationId}, (${`{${ids.join(",")}}`}::uuid[])[1 + (i % ${ids.length})], ${product!.id},
           case when i % 10 = 0 then 'refunded' else 'paid' end, 'purchase',
           1000 + i % 7, 0, 1000 + i % 7, 200, 1200 + i % 7, 'usd',
           ${until}::timestamptz - (i || ' minutes')::interval,
           'SALES-' || lpad((${opts.orders} + 1 - i)::text, 5, '0')
    from generate_series(1, ${opts.orders}) i`);
  if (opts.subscriptions)
    await database.rows(sql`
      insert into subscriptions (organization_id, customer_id, product_id, price_ids, status, amount,
        currency, recurring_interval, current_period_start, current_period_end, started_at, created_at)
      select ${organizationId}, (${`{${ids.join(",")}}`}::uuid[])[1 + (i % ${ids.length})], ${product!.id},
             '{}'::uuid[], 'active', 900, 'usd', 'month', ${until}::timestamptz,
             ${until}::timestamptz + interval '1 month',
             ${until}::timestamptz - (i || ' days')::interval,
             ${until}::timestamptz - (i || ' days')::interval
      from generate_series(1, ${opts.subscriptions}) i`);
  return { productId: product!.id, customerIds: ids };
}
