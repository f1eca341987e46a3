// Deleting an account never leaves an organization, and its customers' money, without a seller (as
// Polar): an account is deleted only once it belongs to no organization, whether its user or an
// admin deletes it. Its user leaves each organization first, or deletes those it owns; an owner of
// one that has sold hands it to another member (organizations/service.ts refuses its deletion).
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { Db } from "../../../db/client.ts";
import { callerSession } from "./hashed-sessions.ts";
import { organizationsOfUser } from "./repository.ts";

export async function assertUserDeletable(
  db: Db,
  userId: string,
  by: "self" | "admin" = "self",
): Promise<void> {
  const organizations = await organizationsOfUser(db, userId);
  if (organizations.length === 0) return;
  const names = organizations.map((o) => `${o.name} (${o.slug})`).join(", ");
  throw APIError.from("BAD_REQUEST", {
    code: "USER_HAS_ORGANIZATIONS",
    message:
      by === "self"
        ? `Leave your organizations, or delete those you own, before deleting your account: ${names}.`
        : `Remove the user from their organizations before deleting the account: ${names}.`,
  });
}

/**
 * Refusals that come before better-auth's own endpoint runs: /delete-user refused before a link is
 * mailed (the mail goes out in the background, past where a refusal could reach the caller), and
 * /admin/remove-user. The latter is checked only for an admin caller: anyone else gets
 * better-auth's own refusal and learns nothing about the user. A deletion that goes ahead is
 * checked once more just before it (user.deleteUser.beforeDelete in options.ts).
 */
export function deletionGuard(db: Db) {
  const handler = createAuthMiddleware(async (ctx) => {
    const caller = await callerSession(ctx);
    if (!caller) return;
    if (ctx.path === "/delete-user") return assertUserDeletable(db, caller.user.id);
    const userId = (ctx.body as { userId?: unknown } | undefined)?.userId;
    const roles = String(caller.user.role ?? "").split(",");
    if (typeof userId !== "string" || !roles.includes("admin")) return;
    await assertUserDeletable(db, userId, "admin");
  });
  return {
    id: "till-deletion-guard",
    hooks: {
      before: [
        {
          matcher: (ctx: { path?: string }) =>
            ctx.path === "/delete-user" || ctx.path === "/admin/remove-user",
          handler,
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
