// The metrics' SQL: the periods of the range in the requested timezone, and per period the
// orders, subscriptions, seats and checkouts of the organizations in scope, in one statement.
import { sql } from "drizzle-orm";
import { arrayLiteral } from "../../../db/bulk.ts";
import { type Db, rowsOf } from "../../../db/client.ts";
import {
  checkouts,
  customerSeats,
  events,
  orders,
  organization as organizations,
  products,
  subscriptions,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import type { Interval } from "./schemas.ts";

export interface MetricsScope {
  organizationIds: OrgScope;
  productIds: readonly string[] | null;
  customerIds: readonly string[] | null;
  billingTypes: readonly ("one_time" | "recurring")[] | null;
}

export interface PeriodRow {
  start_at: Date | string;
  orders: string | number;
  revenue: string | number;
  net_revenue: string | number;
  one_time_products: string | number;
  one_time_products_revenue: string | number;
  one_time_products_net_revenue: string | number;
  new_subscriptions_revenue: string | number;
  new_subscriptions_net_revenue: string | number;
  renewed_subscriptions: string | number;
  renewed_subscriptions_revenue: string | number;
  renewed_subscriptions_net_revenue: string | number;
  new_subscriptions: string | number;
  active_subscriptions: string | number;
  monthly_recurring_revenue: string | number;
  active_customers: string | number;
  canceled_subscriptions: string | number;
  canceled_by_reason: Record<string, number> | string | null;
  churned_subscriptions: string | number;
  checkouts: string | number;
  succeeded_checkouts: string | number;
  active_at_start: string | number;
  committed_subscriptions: string | number;
  committed_monthly_recurring_revenue: string | number;
  trial_monthly_recurring_revenue: string | number;
  trial_committed_monthly_recurring_revenue: string | number;
  costs: string | number;
  active_user_by_event: string | number;
  seats_total: string | number;
  seats_claimed: string | number;
  seat_customers: string | number;
  new_seat_customers: string | number;
  churned_seat_customers: string | number;
}

/** A PostgreSQL array literal sent as one text parameter, or null for "no filter". */
function arrayParam(values: readonly string[] | null): string | null {
  return values && values.length > 0 ? arrayLiteral(values) : null;
}

export async function periodRows(
  db: Db,
  scope: MetricsScope,
  range: { start: string; end: string; interval: Interval; timezone: string },
): Promise<PeriodRow[]> {
  const orgs = arrayParam(scope.organizationIds);
  const productIds = arrayParam(scope.productIds);
  const customerIds = arrayParam(scope.customerIds);
  const billing = arrayParam(scope.billingTypes);
  // A product is "recurring" when it has a recurring interval; an order or subscription whose
  // product is gone counts as neither when the billing type is filtered.
  const billingOf = (productAlias: string) =>
    sql.raw(
      `(case when ${productAlias}.recurring_interval is null then 'one_time' else 'recurring' end)`,
    );
  const result = await db.execute(sql`
    with p as (
      select gs at time zone ${range.timezone} as start_at,
             (gs + ('1 ' || ${range.interval})::interval) at time zone ${range.timezone} as end_at
      from generate_series(
        date_trunc(${range.interval}, ${range.start}::timestamp),
        ${range.end}::timestamp + interval '1 day' - interval '1 microsecond',
        ('1 ' || ${range.interval})::interval
      ) gs
    ),
    o as (
      select o.created_at, o.net_amount, o.net_amount - o.refunded_amount as net_after_refunds, o.billing_reason
      from ${orders} o left join ${products} op on op.id = o.product_id
      where o.organization_id = any(${orgs}::uuid[])
        and o.status in ('paid', 'refunded', 'partially_refunded')
        and (${productIds}::uuid[] is null or o.product_id = any(${productIds}::uuid[]))
        and (${customerIds}::uuid[] is null or o.customer_id = any(${customerIds}::uuid[]))
        and (${billing}::text[] is null or ${billingOf("op")} = any(${billing}::text[]))
    ),
    s as (
      select s.customer_id, s.started_at, s.ended_at, s.canceled_at, s.trial_start, s.trial_end,
             s.customer_cancellation_reason as reason,
             -- What one month of this subscription is worth, in minor units.
             s.amount * (case s.recurring_interval
               when 'year' then 1.0 / 12 when 'week' then 52.0 / 12 when 'day' then 365.0 / 12 else 1 end)
               / greatest(s.recurring_interval_count, 1) as monthly
      from ${subscriptions} s left join ${products} sp on sp.id = s.product_id
      where s.organization_id = any(${orgs}::uuid[])
        and s.started_at is not null
        and (${productIds}::uuid[] is null or s.product_id = any(${productIds}::uuid[]))
        and (${customerIds}::uuid[] is null or s.customer_id = any(${customerIds}::uuid[]))
        and (${billing}::text[] is null or ${billingOf("sp")} = any(${billing}::text[]))
    ),
    -- Usage events of the range: who was active, and what they cost (Polar's _cost metadata, in
    -- minor units of the organization's currency).
    e as (
      select ev.timestamp, ev.customer_id,
             coalesce((ev.metadata -> '_cost' ->> 'amount')::numeric, 0) as cost
      from ${events} ev
      where ev.organization_id = any(${orgs}::uuid[])
        and ev.timestamp >= (select min(start_at) from p) and ev.timestamp < (select max(end_at) from p)
        and (${customerIds}::uuid[] is null or ev.customer_id = any(${customerIds}::uuid[]))
    ),
    -- Seats given of the purchases in scope, by the buyer (the billing customer), as Polar's seat
    -- metrics count them.
    st as (
      select st.billing_customer_id as buyer, st.created_at, st.claimed_at, st.revoked_at
      from ${customerSeats} st
        left join ${subscriptions} sts on sts.id = st.subscription_id
        left join ${orders} sto on sto.id = st.order_id
        left join ${products} stp on stp.id = coalesce(sts.product_id, sto.product_id)
      where st.organization_id = any(${orgs}::uuid[])
        and (${productIds}::uuid[] is null
             or coalesce(sts.product_id, sto.product_id) = any(${productIds}::uuid[]))
        and (${customerIds}::uuid[] is null or st.billing_customer_id = any(${customerIds}::uuid[]))
        and (${billing}::text[] is null or ${billingOf("stp")} = any(${billing}::text[]))
    ),
    c as (
      select c.created_at, c.status
      from ${checkouts} c left join ${products} cp on cp.id = c.product_id
      where c.organization_id = any(${orgs}::uuid[])
        and (${productIds}::uuid[] is null or c.product_id = any(${productIds}::uuid[]))
        and (${customerIds}::uuid[] is null or c.customer_id = any(${customerIds}::uuid[]))
        and (${billing}::text[] is null or ${billingOf("cp")} = any(${billing}::text[]))
    )
    select p.start_at,
      op.orders, op.revenue, op.net_revenue,
      op.one_time_products, op.one_time_products_revenue, op.one_time_products_net_revenue,
      op.new_subscriptions_revenue, op.new_subscriptions_net_revenue,
      op.renewed_subscriptions, op.renewed_subscriptions_revenue, op.renewed_subscriptions_net_revenue,
      sp.new_subscriptions, sp.canceled_subscriptions, sp.canceled_by_reason, sp.churned_subscriptions,
      sa.active_subscriptions, sa.monthly_recurring_revenue, sa.active_customers,
      sa.committed_subscriptions, sa.committed_monthly_recurring_revenue,
      sa.trial_monthly_recurring_revenue, sa.trial_committed_monthly_recurring_revenue,
      ss.active_at_start, ep.costs, ep.active_user_by_event,
      cp.checkouts, cp.succeeded_checkouts,
      sl.seats_total, sl.seats_claimed, sl.seat_customers, sl.new_seat_customers,
      sc.churned_seat_customers
    from p
    cross join lateral (
      select count(*) as orders,
        coalesce(sum(net_amount), 0) as revenue,
        coalesce(sum(net_after_refunds), 0) as net_revenue,
        count(*) filter (where billing_reason = 'purchase') as one_time_products,
        coalesce(sum(net_amount) filter (where billing_reason = 'purchase'), 0) as one_time_products_revenue,
        coalesce(sum(net_after_refunds) filter (where billing_reason = 'purchase'), 0) as one_time_products_net_revenue,
        coalesce(sum(net_amount) filter (where billing_reason = 'subscription_create'), 0) as new_subscriptions_revenue,
        coalesce(sum(net_after_refunds) filter (where billing_reason = 'subscription_create'), 0) as new_subscriptions_net_revenue,
        count(*) filter (where billing_reason = 'subscription_cycle') as renewed_subscriptions,
        coalesce(sum(net_amount) filter (where billing_reason = 'subscription_cycle'), 0) as renewed_subscriptions_revenue,
        coalesce(sum(net_after_refunds) filter (where billing_reason = 'subscription_cycle'), 0) as renewed_subscriptions_net_revenue
      from o where o.created_at >= p.start_at and o.created_at < p.end_at
    ) op
    cross join lateral (
      select count(*) filter (where started_at >= p.start_at and started_at < p.end_at) as new_subscriptions,
        count(*) filter (where canceled_at >= p.start_at and canceled_at < p.end_at) as canceled_subscriptions,
        (select coalesce(jsonb_object_agg(reason, n), '{}'::jsonb) from (
          select coalesce(reason, 'other') as reason, count(*) as n from s
          where canceled_at >= p.start_at and canceled_at < p.end_at group by 1) r) as canceled_by_reason,
        count(*) filter (where ended_at >= p.start_at and ended_at < p.end_at) as churned_subscriptions
      from s
    ) sp
    -- Active at the end of the period: started before it ends, not ended by then. Committed: not
    -- canceled by then (it will renew); trial: still in its trial then.
    cross join lateral (
      select count(*) as active_subscriptions,
        coalesce(round(sum(monthly)), 0) as monthly_recurring_revenue,
        count(distinct customer_id) as active_customers,
        count(*) filter (where committed) as committed_subscriptions,
        coalesce(round(sum(monthly) filter (where committed)), 0) as committed_monthly_recurring_revenue,
        coalesce(round(sum(monthly) filter (where trial)), 0) as trial_monthly_recurring_revenue,
        coalesce(round(sum(monthly) filter (where trial and committed)), 0)
          as trial_committed_monthly_recurring_revenue
      from (select *, (canceled_at is null or canceled_at >= p.end_at) as committed,
                   (trial_start < p.end_at and trial_end >= p.end_at) as trial
            from s where started_at < p.end_at and (ended_at is null or ended_at >= p.end_at)) a
    ) sa
    -- Active when the period starts, the base of its churn rate.
    cross join lateral (
      select count(*) as active_at_start from s
      where started_at < p.start_at and (ended_at is null or ended_at >= p.start_at)
    ) ss
    cross join lateral (
      select coalesce(sum(cost), 0) as costs, count(distinct customer_id) as active_user_by_event
      from e where e.timestamp >= p.start_at and e.timestamp < p.end_at
    ) ep
    cross join lateral (
      select count(*) as checkouts, count(*) filter (where status = 'succeeded') as succeeded_checkouts
      from c where c.created_at >= p.start_at and c.created_at < p.end_at
    ) cp
    -- Seats live at the end of the period (given by then, not revoked by then), claimed by then;
    -- a buyer is new in the period that gave their first seat.
    cross join lateral (
      select count(*) as seats_total,
        count(*) filter (where l.claimed_at < p.end_at) as seats_claimed,
        count(distinct l.buyer) as seat_customers,
        count(distinct l.buyer) filter (where l.created_at >= p.start_at and not exists (
          select 1 from st e where e.buyer = l.buyer and e.created_at < p.start_at)) as new_seat_customers
      from st l where l.created_at < p.end_at and (l.revoked_at is null or l.revoked_at >= p.end_at)
    ) sl
    -- A buyer churns in the period that revoked the last of their seats.
    cross join lateral (
      select count(*) as churned_seat_customers from (
        select buyer from st where created_at < p.end_at group by buyer
        having count(*) = count(revoked_at) filter (where revoked_at < p.end_at)
          and max(revoked_at) >= p.start_at
      ) x
    ) sc
    order by p.start_at
  `);
  return rowsOf<PeriodRow>(result);
}

/** The first day metrics can cover: when the earliest organization of the scope was created. */
export async function earliestOrganization(db: Db, scope: OrgScope): Promise<Date | null> {
  const result = await db.execute(sql`
    select min(created_at) as first from ${organizations} where id = any(${arrayParam(scope)}::uuid[])
  `);
  const first = rowsOf<{ first: Date | string | null }>(result)[0]?.first;
  return first ? new Date(first) : null;
}
