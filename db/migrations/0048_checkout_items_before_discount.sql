-- A discounted checkout's order item was written net of the discount, which the order also
-- subtracts: its one item takes the price before the discount, as every other order's items.
update order_items i set amount = o.subtotal_amount
from orders o
where i.order_id = o.id and o.checkout_id is not null and o.discount_amount > 0
  and i.amount = o.net_amount
  and (select count(*) from order_items x where x.order_id = o.id) = 1;
