// What the confirmation page shows: the checkout (by its client secret) and, with the buyer's
// customer session, the order it created and the benefits granted for it. Benefits are granted in the
// background, so the page asks again for a while until none is pending.
import { checkoutApi, type CheckoutApiError, settledStatus } from "../checkout/api.ts";
import type { Checkout } from "../checkout/types.ts";
import { portalApi, type Downloadable, type LicenseKey, type Subscription } from "../portal/api.ts";

export interface ConfirmedOrder {
  id: string;
  invoice_number: string | null;
  total_amount: number;
  tax_amount: number;
  currency: string;
  created_at: string;
  checkout_id: string | null;
  subscription_id: string | null;
}

export interface Grant {
  id: string;
  benefit_id: string;
  order_id: string | null;
  subscription_id: string | null;
  is_granted: boolean;
  is_revoked: boolean;
  error: { message?: string } | null;
  benefit: {
    type: string;
    description: string;
    properties?: { note?: string | null } | null;
  };
}

export interface Confirmation {
  checkout: Checkout;
  order: ConfirmedOrder | null;
  /** The subscription the order started, for the date it first renews. */
  subscription: Subscription | null;
  grants: Grant[];
  licenseKeys: LicenseKey[];
  downloadables: (Downloadable & { benefit_id?: string })[];
  /** True while a grant has neither succeeded nor failed yet. */
  pending: boolean;
}

export class ConfirmationError extends Error {}

export async function loadCheckout(secret: string): Promise<Checkout> {
  try {
    let checkout = await checkoutApi.get(secret);
    // The payment is still settling: wait for the stream to say how it ended.
    if (checkout.status === "confirmed") {
      await settledStatus(secret, 30_000);
      checkout = await checkoutApi.get(secret);
    }
    return checkout;
  } catch (e) {
    const status = (e as CheckoutApiError).status;
    throw new ConfirmationError(
      status === 410
        ? "This checkout has expired."
        : status === 404
          ? "This checkout does not exist."
          : "The order could not be loaded. Check your connection and reload the page.",
    );
  }
}

export async function loadOrder(checkout: Checkout, token: string | null): Promise<Confirmation> {
  const empty = {
    checkout,
    order: null,
    subscription: null,
    grants: [],
    licenseKeys: [],
    downloadables: [],
  };
  if (!token || checkout.status !== "succeeded") return { ...empty, pending: false };
  const api = portalApi(token);
  try {
    const orders = (await api.orders()) as unknown as ConfirmedOrder[];
    const order = orders.find((o) => o.checkout_id === checkout.id) ?? null;
    if (!order) return { ...empty, pending: false };
    const [allGrants, licenseKeys, downloadables, subscriptions] = await Promise.all([
      api.benefitGrants() as unknown as Promise<Grant[]>,
      api.licenseKeys(),
      api.downloadables() as Promise<(Downloadable & { benefit_id?: string })[]>,
      order.subscription_id ? api.subscriptions() : [],
    ]);
    const grants = allGrants.filter(
      (g) =>
        g.order_id === order.id ||
        (order.subscription_id !== null && g.subscription_id === order.subscription_id),
    );
    const ours = new Set(grants.map((g) => g.benefit_id));
    return {
      checkout,
      order,
      subscription: subscriptions.find((x) => x.id === order.subscription_id) ?? null,
      grants,
      licenseKeys: licenseKeys.filter((k) => ours.has(k.benefit_id)),
      downloadables: downloadables.filter((d) => !d.benefit_id || ours.has(d.benefit_id)),
      pending: grants.some((g) => !g.is_granted && !g.is_revoked && !g.error),
    };
  } catch {
    // An expired session (the page opened again hours later) still shows what the checkout knows.
    return { ...empty, pending: false };
  }
}
