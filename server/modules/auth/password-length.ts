// better-auth refuses a password out of bounds with "Password too short" (or long) and no bound, so
// a seller signing up learns only to guess again. The same codes are answered here first, with the
// bound in the message; clients that read the code see no change.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";

/** The endpoints that take a new password, and the body field that carries it. */
const FIELDS: Record<string, string> = {
  "/sign-up/email": "password",
  "/reset-password": "newPassword",
  "/change-password": "newPassword",
  "/set-password": "newPassword",
  "/admin/set-user-password": "newPassword",
};

export function passwordLengthMessages(bounds: { min: number; max: number }) {
  const handler = createAuthMiddleware(async (ctx) => {
    const field = FIELDS[ctx.path ?? ""];
    const password = field ? (ctx.body as Record<string, unknown> | undefined)?.[field] : undefined;
    if (typeof password !== "string") return;
    if (password.length < bounds.min)
      throw APIError.from("BAD_REQUEST", {
        code: "PASSWORD_TOO_SHORT",
        message: `Password too short: use at least ${bounds.min} characters.`,
      });
    if (password.length > bounds.max)
      throw APIError.from("BAD_REQUEST", {
        code: "PASSWORD_TOO_LONG",
        message: `Password too long: use at most ${bounds.max} characters.`,
      });
  });
  return {
    id: "till-password-length",
    hooks: {
      before: [{ matcher: (ctx: { path?: string }) => (ctx.path ?? "") in FIELDS, handler }],
    },
  } satisfies BetterAuthPlugin;
}
