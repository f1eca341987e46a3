// `till trigger <event>`: makes real sandbox objects whose changes fire the event, so a developer
// can exercise a webhook handler end to end. Refuses on a production server.
import { randomBytes } from "node:crypto";
import type { ApiClient } from "../lib/api.ts";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

interface Product {
  id: string;
}
interface Checkout {
  id: string;
  client_secret: string;
}

type Step = (api: ApiClient, state: Record<string, string>) => Promise<void>;

const product =
  (recurring: boolean): Step =>
  async (api, s) => {
    const p = await api.post<Product>("/v1/products/", {
      name: `till trigger ${recurring ? "subscription" : "product"} ${randomBytes(3).toString("hex")}`,
      recurring_interval: recurring ? "month" : null,
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
      metadata: { till_trigger: true },
    });
    s.productId = p.id;
  };

const checkout: Step = async (api, s) => {
  const c = await api.post<Checkout>("/v1/checkouts/", {
    products: [s.productId],
    customer_email: `trigger+${randomBytes(4).toString("hex")}@example.com`,
    metadata: { till_trigger: true },
  });
  s.checkoutId = c.id;
  s.secret = c.client_secret;
};

const pay: Step = async (api, s) => {
  await api.post(`/v1/checkouts/client/${s.secret}/confirm`, {
    customer_billing_address: { country: "US" },
    confirmation_token_id: "sandbox_token_success",
  });
  const order = await api.get<{ items: { id: string; subscription_id: string | null }[] }>(
    "/v1/orders/",
    { checkout_id: s.checkoutId, page: 1, limit: 1 },
  );
  s.orderId = order.items[0]!.id;
  if (order.items[0]!.subscription_id) s.subscriptionId = order.items[0]!.subscription_id;
};

const subscriptionUpdate =
  (body: object): Step =>
  async (api, s) => {
    await api.patch(`/v1/subscriptions/${s.subscriptionId}`, body);
  };

const purchase = (recurring: boolean) => [product(recurring), checkout, pay];

/** Which steps fire each event type. */
export const TRIGGERS: Record<string, Step[]> = {
  "product.created": [product(false)],
  "product.updated": [
    product(false),
    async (api, s) =>
      void (await api.patch(`/v1/products/${s.productId}`, {
        description: "updated by till trigger",
      })),
  ],
  "customer.created": [
    async (api) =>
      void (await api.post("/v1/customers/", {
        type: "individual",
        email: `trigger+${randomBytes(4).toString("hex")}@example.com`,
        metadata: { till_trigger: true },
      })),
  ],
  "checkout.created": [product(false), checkout],
  "checkout.updated": purchase(false),
  "order.created": purchase(false),
  "order.paid": purchase(false),
  "customer.state_changed": purchase(true),
  "subscription.created": purchase(true),
  "subscription.active": purchase(true),
  "subscription.updated": [...purchase(true), subscriptionUpdate({ cancel_at_period_end: true })],
  "subscription.canceled": [...purchase(true), subscriptionUpdate({ cancel_at_period_end: true })],
  "subscription.uncanceled": [
    ...purchase(true),
    subscriptionUpdate({ cancel_at_period_end: true }),
    subscriptionUpdate({ cancel_at_period_end: false }),
  ],
  "subscription.revoked": [...purchase(true), subscriptionUpdate({ revoke: true })],
};

export async function trigger(ctx: CommandContext, event: string): Promise<void> {
  const steps = TRIGGERS[event];
  if (!steps)
    throw new AbortError(`No trigger for "${event}".`, {
      hint: `Available: ${Object.keys(TRIGGERS).join(", ")}`,
      exitCode: EXIT.usage,
    });
  const ready = await ctx.anonymousApi().get<{ mode?: string }>("/readyz");
  if (ready.mode !== "sandbox")
    throw new AbortError(
      `${ctx.session.server} runs in production mode; till trigger only makes test purchases in sandbox mode.`,
    );
  const api = ctx.api();
  const state: Record<string, string> = {};
  for (const step of steps) await step(api, state);
  ctx.out.result(
    { event, ...state },
    () =>
      `Triggered ${event}${state.orderId ? ` (order ${state.orderId})` : state.productId ? ` (product ${state.productId})` : ""}.`,
  );
}
