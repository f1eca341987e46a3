// All SQL of wallets. A wallet's balance is never stored: it is the sum of its ledger, read under
// the wallet row's lock whenever it is about to change, so concurrent writers queue on the row.
import { and, asc, count, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import {
  walletTransactions,
  wallets,
  type WalletReason,
  type WalletType,
} from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";

export type WalletRow = typeof wallets.$inferSelect;
export type WalletWithBalance = WalletRow & { balance: number };

/** One customer's wallet of a type and currency: what every ledger write is keyed on. */
export interface WalletKey {
  organizationId: string;
  customerId: string;
  type: WalletType;
  currency: string;
}

// Written out: drizzle leaves columns of a correlated subquery unqualified, and "id" would bind to
// the ledger's own id.
const balanceSql = sql<number>`(select coalesce(sum(wt.amount), 0) from wallet_transactions wt where wt.wallet_id = "wallets"."id")`;

const ofKey = (k: WalletKey) =>
  and(
    eq(wallets.organizationId, k.organizationId),
    eq(wallets.customerId, k.customerId),
    eq(wallets.type, k.type),
    eq(wallets.currency, k.currency),
  );

/** The wallet, locked until the transaction ends; null when the customer has none. */
export async function lockWallet(tx: Tx, k: WalletKey): Promise<WalletRow | null> {
  const [row] = await tx.select().from(wallets).where(ofKey(k)).for("update");
  return row ?? null;
}

/** The wallet, created on first use (a concurrent creation is absorbed), then locked. */
export async function lockOrCreateWallet(tx: Tx, k: WalletKey, now: Date): Promise<WalletRow> {
  await tx
    .insert(wallets)
    .values({ ...k, createdAt: now })
    .onConflictDoNothing();
  return (await lockWallet(tx, k))!;
}

export async function balanceOf(tx: Tx, walletId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<string>`coalesce(sum(${walletTransactions.amount}), 0)` })
    .from(walletTransactions)
    .where(eq(walletTransactions.walletId, walletId));
  return Number(row?.n ?? 0);
}

export type WalletTransactionRow = typeof walletTransactions.$inferSelect;

export async function transactionOf(
  tx: Tx,
  walletId: string,
  reason: WalletReason,
  reference: string,
): Promise<WalletTransactionRow | null> {
  const [row] = await tx
    .select()
    .from(walletTransactions)
    .where(
      and(
        eq(walletTransactions.walletId, walletId),
        eq(walletTransactions.reason, reason),
        eq(walletTransactions.reference, reference),
      ),
    );
  return row ?? null;
}

/** Appends a movement; one with the same (wallet, reason, reference) already there wins. */
export async function appendTransaction(
  tx: Tx,
  row: typeof walletTransactions.$inferInsert,
): Promise<void> {
  await tx.insert(walletTransactions).values(row).onConflictDoNothing();
  await tx
    .update(wallets)
    .set({ modifiedAt: row.createdAt ?? new Date() })
    .where(eq(wallets.id, row.walletId));
}

/** Points the hold taken for `reference` (before the order existed) at the order. */
export async function linkOrder(
  tx: Tx,
  walletId: string,
  reference: string,
  orderId: string,
): Promise<void> {
  await tx
    .update(walletTransactions)
    .set({ orderId })
    .where(
      and(
        eq(walletTransactions.walletId, walletId),
        eq(walletTransactions.reason, "order_payment"),
        eq(walletTransactions.reference, reference),
      ),
    );
}

/** Holds of a subscription no order took and nothing gave back yet. */
export async function openHoldsOfSubscription(
  tx: Tx,
  walletId: string,
  subscriptionId: string,
): Promise<WalletTransactionRow[]> {
  return tx
    .select()
    .from(walletTransactions)
    .where(
      and(
        eq(walletTransactions.walletId, walletId),
        eq(walletTransactions.subscriptionId, subscriptionId),
        eq(walletTransactions.reason, "order_payment"),
        isNull(walletTransactions.orderId),
        sql`${walletTransactions.amount} <> 0`,
        sql`not exists (select 1 from wallet_transactions r where r.wallet_id = ${walletId}
          and r.reason = 'order_payment_release' and r.reference = ${walletTransactions.reference})`,
      ),
    );
}

/** Customers among `customerIds` with a wallet in `currency` (the rest have nothing to spend). */
export async function customersWithWallets(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
  currency: string,
): Promise<Set<string>> {
  if (customerIds.length === 0) return new Set();
  const rows = await db
    .select({ customerId: wallets.customerId })
    .from(wallets)
    .where(
      and(
        inScope(wallets.organizationId, scope),
        anyOf(wallets.customerId, customerIds),
        eq(wallets.currency, currency),
        eq(wallets.type, "billing"),
      ),
    );
  return new Set(rows.map((r) => r.customerId));
}

const SORTS = { created_at: wallets.createdAt, balance: balanceSql } as const;
export type WalletSort = keyof typeof SORTS;

/** A customer's own wallets, as the portal lists them. */
export async function listCustomerWallets(
  db: Db,
  scope: OrgScope,
  customerId: string,
  sorting: { key: WalletSort; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: WalletWithBalance[]; total: number }> {
  const where = and(inScope(wallets.organizationId, scope), eq(wallets.customerId, customerId));
  const order: SQL[] = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select({ wallet: wallets, balance: balanceSql })
      .from(wallets)
      .where(where)
      .orderBy(...order, asc(wallets.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(wallets).where(where),
  ]);
  return {
    rows: rows.map((r) => ({ ...r.wallet, balance: Number(r.balance) })),
    total: totals!.n,
  };
}

export async function customerWalletById(
  db: Db,
  scope: OrgScope,
  customerId: string,
  id: string,
): Promise<WalletWithBalance | null> {
  const [row] = await db
    .select({ wallet: wallets, balance: balanceSql })
    .from(wallets)
    .where(
      and(
        eq(wallets.id, id),
        inScope(wallets.organizationId, scope),
        eq(wallets.customerId, customerId),
      ),
    );
  return row ? { ...row.wallet, balance: Number(row.balance) } : null;
}
