// Platform admins (user role `admin`): who they are, the first ones from TILL_ADMIN_EMAILS, and what
// only they may do when AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION=false.
//
// A user whose email is in TILL_ADMIN_EMAILS gets the admin role once the address is shown to be
// theirs: at sign-up when it is already verified (a provider said so) or when verification is not
// required (sandbox); otherwise when they follow the verification link. Users who were there before
// their email was listed (or changed to it) are promoted when the server starts. Nothing is demoted
// here: removing an email from the list leaves the role to `/admin/set-role`.
import type { Config } from "../../config.ts";
import type { Db } from "../../../db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { promoteToAdmin } from "./repository.ts";

export function isAdminRole(role: string | null | undefined): boolean {
  return (role ?? "").split(",").some((r) => r.trim() === "admin");
}

function listed(config: Readonly<Config>, email: string): boolean {
  return config.auth.adminEmails.includes(email.toLowerCase());
}

/** For `databaseHooks.user.create.before`: the admin role for a listed email that needs no further proof. */
export function adminRoleOnCreate(
  config: Readonly<Config>,
  data: { email: string; emailVerified?: boolean | null },
) {
  if (!listed(config, data.email)) return undefined;
  if (config.auth.requireEmailVerification && data.emailVerified !== true) return undefined;
  return { data: { role: "admin" } };
}

/**
 * For `emailVerification.beforeEmailVerification`: promotes a listed user whose address is being
 * verified. better-auth builds the session cookie of this request (auto sign-in) from the same user
 * object, so it is updated too; otherwise the cookie cache would report the old role for minutes.
 */
export async function promoteOnVerification(
  db: Db,
  config: Readonly<Config>,
  u: { email: string; role?: string | null },
): Promise<void> {
  if (!listed(config, u.email) || isAdminRole(u.role)) return;
  await promoteToAdmin(db, [u.email.toLowerCase()], false);
  u.role = "admin";
}

/** At start: listed users who signed up before their email was listed (verified ones, where required). */
export async function promoteListedAdmins(
  db: Db,
  config: Readonly<Config>,
  log: Logger,
): Promise<void> {
  const promoted = await promoteToAdmin(
    db,
    config.auth.adminEmails,
    config.auth.requireEmailVerification,
  );
  for (const p of promoted)
    log.info({ userId: p.id, email: p.email }, "TILL_ADMIN_EMAILS: user promoted to admin");
}

/** Who may create an organization (AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION): everyone, or only admins. */
export function mayCreateOrganization(
  config: Readonly<Config>,
  role: string | null | undefined,
): boolean {
  return config.auth.allowUserToCreateOrganization || isAdminRole(role);
}
