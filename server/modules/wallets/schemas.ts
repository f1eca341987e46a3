// Wire shapes of wallets (Polar's CustomerWallet) and the portal's list query.
import { z } from "zod";
import { sortingSchema } from "../../lib/sorting.ts";
import { timestamped } from "../../lib/wire.ts";
import type { WalletWithBalance } from "./repository.ts";

export const customerWalletSchema = z
  .object({
    ...timestamped,
    customer_id: z.uuid(),
    balance: z.number().int(),
    currency: z.string(),
  })
  .meta({
    id: "CustomerWallet",
    description: "A wallet represents your balance with an organization.",
  });
export type CustomerWallet = z.output<typeof customerWalletSchema>;

export const customerWalletListQuery = z.object({
  sorting: sortingSchema(["created_at", "balance"] as const, ["-created_at"]),
});

export function serializeWallet(w: WalletWithBalance): CustomerWallet {
  return {
    id: w.id,
    created_at: w.createdAt.toISOString(),
    modified_at: w.modifiedAt?.toISOString() ?? null,
    customer_id: w.customerId,
    balance: w.balance,
    currency: w.currency,
  };
}
