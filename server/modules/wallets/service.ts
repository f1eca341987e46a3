// Customer balance, as Polar's billing wallet: credited when a plan change or an order leaves the
// customer money back, spent by the next orders before anything is charged. Every movement is a
// ledger row written under the wallet row's lock, in the transaction of the change that causes it.
// An order's spend is taken before its charge (renewals charge outside any transaction) under the
// order's billing key: a re-run of the same renewal finds the same hold and charges the same
// remainder, and a second order racing for the same credit waits on the lock and sees it spent.
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { WalletReason } from "../../../db/schema/index.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { scopeOfCustomer, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import * as repo from "./repository.ts";
import { serializeWallet, type CustomerWallet } from "./schemas.ts";

/** The billing wallet of one customer in one currency. */
export interface BalanceOwner {
  organizationId: string;
  customerId: string;
  currency: string;
}

const billing = (o: BalanceOwner): repo.WalletKey => ({ ...o, type: "billing" });

/** Credits the customer's balance (creating the wallet on first credit); once per reference. */
export async function creditBalance(
  tx: Tx,
  owner: BalanceOwner,
  c: {
    amount: number;
    reason: Extract<WalletReason, "proration_credit" | "order_surplus">;
    reference: string;
    orderId?: string | null;
    subscriptionId?: string | null;
    now: Date;
  },
): Promise<void> {
  if (c.amount <= 0) return;
  const wallet = await repo.lockOrCreateWallet(tx, billing(owner), c.now);
  await repo.appendTransaction(tx, {
    walletId: wallet.id,
    amount: c.amount,
    reason: c.reason,
    reference: c.reference,
    orderId: c.orderId ?? null,
    subscriptionId: c.subscriptionId ?? null,
    createdAt: c.now,
  });
}

/**
 * An order's amount below the smallest charge the card networks take, not charged: owed on the
 * balance, which the customer's next order collects (Polar marks such an order paid and moves its
 * amount to the balance). Once per order.
 */
export async function deferToBalance(
  tx: Tx,
  owner: BalanceOwner,
  d: { amount: number; orderId: string; subscriptionId: string | null; now: Date },
): Promise<void> {
  if (d.amount <= 0) return;
  const wallet = await repo.lockOrCreateWallet(tx, billing(owner), d.now);
  await repo.appendTransaction(tx, {
    walletId: wallet.id,
    amount: -d.amount,
    reason: "order_deferred",
    reference: `order:${d.orderId}`,
    orderId: d.orderId,
    subscriptionId: d.subscriptionId,
    createdAt: d.now,
  });
}

/**
 * Takes up to `total` from the balance for the order keyed `reference`, in its own transaction
 * before the order's charge; answers the amount taken (what the charge no longer asks for), or,
 * when the customer owes, the negative amount owed (what the charge asks for on top). The
 * same reference answers the same amount, so a re-run charges what the first run charged.
 */
export async function holdBalance(
  db: Db,
  owner: BalanceOwner,
  h: { total: number; reference: string; subscriptionId: string | null; now: Date },
): Promise<number> {
  if (h.total <= 0) return 0;
  return inTransaction(db, async (tx) => {
    const wallet = await repo.lockWallet(tx, billing(owner));
    if (!wallet) return 0;
    const held = await repo.transactionOf(tx, wallet.id, "order_payment", h.reference);
    if (held) return -held.amount;
    const balance = await repo.balanceOf(tx, wallet.id);
    // Credit pays up to the total; what is owed (order_deferred) is added to it whole.
    const take = balance < 0 ? balance : Math.min(h.total, balance);
    // A zero hold is kept too: a credit arriving before a re-run must not change its charge.
    await repo.appendTransaction(tx, {
      walletId: wallet.id,
      amount: -take,
      reason: "order_payment",
      reference: h.reference,
      subscriptionId: h.subscriptionId,
      createdAt: h.now,
    });
    return take;
  });
}

/** holdBalance for many orders (a renewal batch); one read finds the customers with a wallet. */
export async function holdBalances(
  db: Db,
  organizationId: string,
  holds: (Omit<BalanceOwner, "organizationId"> & Parameters<typeof holdBalance>[2])[],
): Promise<number[]> {
  const byCurrency = new Map<string, Set<string>>();
  for (const currency of new Set(holds.map((h) => h.currency)))
    byCurrency.set(
      currency,
      await repo.customersWithWallets(
        db,
        scopeOfResource({ organizationId }),
        [...new Set(holds.filter((h) => h.currency === currency).map((h) => h.customerId))],
        currency,
      ),
    );
  const taken: number[] = [];
  // One at a time: two orders of the same customer must see each other's hold.
  for (const h of holds)
    taken.push(
      byCurrency.get(h.currency)!.has(h.customerId)
        ? await holdBalance(db, { organizationId, ...h }, h)
        : 0,
    );
  return taken;
}

/** The order as its balance movements see it. */
export interface BalanceOrder {
  id: string;
  organizationId: string;
  customerId: string;
  currency: string;
  subscriptionId: string | null;
  billingKey: string | null;
  billingReason: string;
  totalAmount: number;
  appliedBalanceAmount: number;
}

/**
 * In the order's transaction, its effect on the balance: the hold it spent now names it, and a
 * negative total (a credit larger than what the order bills) is credited, as Polar does.
 */
export async function settleOrderBalance(tx: Tx, order: BalanceOrder, now: Date): Promise<void> {
  if (order.appliedBalanceAmount !== 0 && order.billingKey) {
    const wallet = await repo.lockWallet(tx, billing(order));
    if (wallet) await repo.linkOrder(tx, wallet.id, order.billingKey, order.id);
  }
  if (order.totalAmount < 0)
    await creditBalance(tx, order, {
      amount: -order.totalAmount,
      reason: order.billingReason === "subscription_update" ? "proration_credit" : "order_surplus",
      reference: `order:${order.id}`,
      orderId: order.id,
      subscriptionId: order.subscriptionId,
      now,
    });
}

/** Gives back a hold no order took (its period was renewed some other way); once. */
export async function releaseHold(
  tx: Tx,
  owner: BalanceOwner,
  reference: string,
  now: Date,
): Promise<void> {
  const wallet = await repo.lockWallet(tx, billing(owner));
  if (!wallet) return;
  const held = await repo.transactionOf(tx, wallet.id, "order_payment", reference);
  if (!held || held.orderId || held.amount === 0) return;
  await repo.appendTransaction(tx, {
    walletId: wallet.id,
    amount: -held.amount,
    reason: "order_payment_release",
    reference,
    subscriptionId: held.subscriptionId,
    createdAt: now,
  });
}

/**
 * The subscription ended with a renewal's hold still open (its charge never got an answer, and
 * no retry will make the order): the hold goes back.
 */
export async function releaseHoldsOfSubscription(
  tx: Tx,
  owner: BalanceOwner,
  subscriptionId: string,
  now: Date,
): Promise<void> {
  const wallet = await repo.lockWallet(tx, billing(owner));
  if (!wallet) return;
  for (const held of await repo.openHoldsOfSubscription(tx, wallet.id, subscriptionId))
    await repo.appendTransaction(tx, {
      walletId: wallet.id,
      amount: -held.amount,
      reason: "order_payment_release",
      reference: held.reference,
      subscriptionId,
      createdAt: now,
    });
}

/**
 * A voided order will never be collected: the balance it spent goes back, and what was owed that
 * it added is owed again (as Polar's void).
 */
export async function returnBalanceOfVoidedOrder(
  tx: Tx,
  order: {
    id: string;
    organizationId: string;
    customerId: string;
    currency: string;
    appliedBalanceAmount: number;
    subscriptionId: string | null;
  },
  now: Date,
): Promise<void> {
  if (order.appliedBalanceAmount === 0) return;
  const wallet = await repo.lockOrCreateWallet(tx, billing(order), now);
  await repo.appendTransaction(tx, {
    walletId: wallet.id,
    amount: -order.appliedBalanceAmount,
    reason: "order_payment_release",
    reference: `void:${order.id}`,
    orderId: order.id,
    subscriptionId: order.subscriptionId,
    createdAt: now,
  });
}

export async function listCustomerWallets(
  db: Db,
  owner: CustomerContext,
  sorting: { key: repo.WalletSort; desc: boolean }[],
  page: Pagination,
) {
  const { rows, total } = await repo.listCustomerWallets(
    db,
    scopeOfCustomer(owner),
    owner.customerId,
    sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(serializeWallet), total, page);
}

export async function getCustomerWallet(
  db: Db,
  owner: CustomerContext,
  id: string,
): Promise<CustomerWallet> {
  const row = await repo.customerWalletById(db, scopeOfCustomer(owner), owner.customerId, id);
  if (!row) throw new ResourceNotFound();
  return serializeWallet(row);
}
