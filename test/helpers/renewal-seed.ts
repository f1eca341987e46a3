// Many subscriptions due at one instant, for the renewal crash test and benchmark: one subscription
// bought through the API is cloned, each clone with its own customer and a copy of the customer's
// saved payment method and a copy of the first order (with its items, as a real subscription has
// one), then every subscription of the organization is made due at `dueAt`.
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";

export async function seedDueSubscriptions(
  database: Database,
  o: { organizationId: string; subscriptionId: string; clones: number; dueAt: Date },
): Promise<void> {
  const due = o.dueAt.toISOString();
  await database.rows(sql`
    with src as (
      select s.*, pm.processor, pm.processor_payment_method_id, pm.processor_customer_id,
             pm.brand, pm.last4, pm.exp_month, pm.exp_year
      from subscriptions s join payment_methods pm on pm.customer_id = s.customer_id
      where s.id = ${o.subscriptionId}
    ), c as (
      insert into customers (organization_id, email, name)
      select ${o.organizationId}, 'renewal-' || g || '@example.com', 'Renewal ' || g
      from generate_series(1, ${o.clones}) g
      returning id
    ), pm as (
      insert into payment_methods (organization_id, customer_id, processor,
        processor_payment_method_id, processor_customer_id, type, brand, last4, exp_month, exp_year,
        is_default)
      select ${o.organizationId}, c.id, src.processor, src.processor_payment_method_id,
        src.processor_customer_id, 'card', src.brand, src.last4, src.exp_month, src.exp_year, true
      from c, src
      returning customer_id
    )
    insert into subscriptions (organization_id, customer_id, product_id, price_ids, status, amount,
      currency, recurring_interval, recurring_interval_count, current_period_start,
      current_period_end, started_at, metadata, custom_field_data, next_action_at, created_at)
    select src.organization_id, pm.customer_id, src.product_id, src.price_ids, 'active', src.amount,
      src.currency, src.recurring_interval, src.recurring_interval_count, src.current_period_start,
      src.current_period_end, src.started_at, src.metadata, src.custom_field_data,
      src.next_action_at, src.created_at
    from pm, src
    returning id`);
  await database.rows(sql`
    with src as (
      select * from orders
      where subscription_id = ${o.subscriptionId} and billing_reason = 'subscription_create'
    ), ins as (
      insert into orders (organization_id, customer_id, product_id, subscription_id, status,
        billing_reason, subtotal_amount, discount_amount, net_amount, tax_amount, total_amount,
        currency, billing_name, billing_address, metadata, custom_field_data, payment_attempts,
        seats, created_at)
      select s.organization_id, s.customer_id, s.product_id, s.id, src.status, src.billing_reason,
        src.subtotal_amount, src.discount_amount, src.net_amount, src.tax_amount,
        src.total_amount, src.currency, src.billing_name, src.billing_address, src.metadata,
        src.custom_field_data, src.payment_attempts, src.seats, src.created_at
      from subscriptions s, src
      where s.organization_id = ${o.organizationId} and s.id <> ${o.subscriptionId}
      returning id
    )
    insert into order_items (order_id, label, amount, tax_amount, proration, product_price_id)
    select ins.id, i.label, i.amount, i.tax_amount, i.proration, i.product_price_id
    from ins, order_items i join src on i.order_id = src.id
    returning id`);
  await database.rows(sql`
    update subscriptions
    set current_period_start = ${due}::timestamptz - interval '1 month',
        current_period_end = ${due}::timestamptz, next_action_at = ${due}::timestamptz
    where organization_id = ${o.organizationId}
    returning id`);
}
