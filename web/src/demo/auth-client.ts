// The demo store's browser half, as a seller's app would set it up: better-auth's client at the
// store's own auth path, with till's client plugin for checkoutEmbed and the customer endpoints.
import { createAuthClient } from "better-auth/client";
import { tillClient } from "../../../integrations/better-auth/client.ts";

export const authClient = createAuthClient({
  baseURL: `${window.location.origin}/demo/api/auth`,
  plugins: [tillClient()],
});

export interface DemoProduct {
  slug: string;
  id: string;
  name: string;
  description: string | null;
  recurring_interval: string | null;
  price_amount: number;
  price_currency: string;
}

/** What the plugin's GET /customer/state answers (Polar's CustomerState, the parts shown here). */
export interface CustomerState {
  active_subscriptions: {
    id: string;
    product_id: string;
    status: string;
    amount: number;
    currency: string;
    recurring_interval: string;
    current_period_end: string | null;
  }[];
  granted_benefits: { id: string; benefit_type: string }[];
}

export async function listProducts(): Promise<DemoProduct[]> {
  const res = await fetch("/demo/api/products");
  if (!res.ok) throw new Error("The catalog could not be loaded.");
  return (await res.json()) as DemoProduct[];
}
