-- A plan change used to keep the subscription's billing interval while its product renewed at
-- another: each subscription takes its product's.
update subscriptions s set recurring_interval = p.recurring_interval,
  recurring_interval_count = coalesce(p.recurring_interval_count, 1)
from products p
where p.id = s.product_id and p.recurring_interval is not null
  and (s.recurring_interval <> p.recurring_interval
    or s.recurring_interval_count <> coalesce(p.recurring_interval_count, 1));
