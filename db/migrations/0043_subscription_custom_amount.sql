ALTER TABLE "subscriptions" ADD COLUMN "custom_amount" bigint;--> statement-breakpoint
-- Subscriptions sold at a custom price keep the amount the customer chose, before the discount
-- (the checkout's subtotal): renewals price the custom line from it.
UPDATE "subscriptions" s SET "custom_amount" = c."amount"
FROM "checkouts" c JOIN "product_prices" p ON p."id" = c."product_price_id"
WHERE c."id" = s."checkout_id" AND p."amount_type" = 'custom';
