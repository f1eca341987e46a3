// The seller's users kept as till customers (external_id = user id): created at sign-up (or a
// guest customer with the same email linked), updated and deleted with the user. A failure is
// logged and never fails the user's own action: the first checkout creates the customer anyway.
import type { User } from "better-auth";
import { type TillApi, TillApiError } from "./till-api.ts";

export interface CustomerSyncOptions {
  /** Create a till customer (external_id = user id) when a user signs up; update and delete it with the user. */
  createCustomerOnSignUp?: boolean;
  /** Extra fields for the customer created on sign-up (metadata, billing address…). */
  getCustomerCreateParams?: (input: {
    user: User;
  }) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

type HookUser = User & Record<string, unknown>;
type HookContext = { context: { logger: { error(msg: string): void } } } | null;

/** better-auth's user hooks doing `sync` after each act, with failures logged as "till customer <act> failed". */
export function customerHooks(api: TillApi, options: CustomerSyncOptions) {
  const after =
    (act: string, sync: (user: HookUser) => Promise<unknown>) =>
    async (user: HookUser, ctx: HookContext) => {
      if (!options.createCustomerOnSignUp || user.isAnonymous === true) return;
      try {
        await sync(user);
      } catch (err) {
        if (act === "delete" && err instanceof TillApiError && err.status === 404) return;
        ctx?.context.logger.error(
          `till customer ${act} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    };
  return {
    create: {
      after: after("creation", async (user) => {
        // A guest who bought before signing up already is a customer: link them instead.
        const existing = (await api.customers.listByEmail(user.email)).items[0] as
          | { id: string; external_id: string | null }
          | undefined;
        if (existing && existing.external_id === null)
          await api.customers.update(existing.id, { external_id: user.id });
        else if (!existing) {
          const extra = (await options.getCustomerCreateParams?.({ user })) ?? {};
          await api.customers.create({
            ...extra,
            email: user.email,
            name: user.name || null,
            external_id: user.id,
          });
        }
      }),
    },
    update: {
      after: after("update", (user) =>
        api.customers.updateExternal(user.id, { email: user.email, name: user.name || null }),
      ),
    },
    delete: { after: after("delete", (user) => api.customers.deleteExternal(user.id)) },
  };
}
