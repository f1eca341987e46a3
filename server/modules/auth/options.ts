// better-auth configured for till: email/password with verification, social providers from the
// environment, organizations with teams and custom roles, admin, device login for the CLI, bearer
// tokens, usernames and an optional captcha. Every id is a UUID, as Polar's contract expects.
import { scrypt as scryptCb, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import {
  admin,
  bearer,
  captcha,
  deviceAuthorization,
  organization,
  username,
} from "better-auth/plugins";
import * as adminAccess from "better-auth/plugins/admin/access";
import { adminAc, defaultAc, memberAc, ownerAc } from "better-auth/plugins/organization/access";
import type { Db } from "../../../db/client.ts";
import * as schema from "../../../db/schema/index.ts";
import type { Config } from "../../config.ts";
import type { Mailer } from "../email/mailer.ts";
import { assertUserDeletable, deletionGuard } from "./deletion.ts";
import { passwordLengthMessages } from "./password-length.ts";
import { markDeviceSession } from "./device-sessions.ts";
import { hashingSessionTokens, sessionHandles } from "./hashed-sessions.ts";
import { deleteOtherSessions, deleteSessionByHandle } from "./repository.ts";
import {
  adminRoleOnCreate,
  mayCreateOrganization,
  promoteOnVerification,
} from "./platform-admins.ts";
import { builtInProviders, overriddenProviders } from "./social.ts";

export const CLI_CLIENT_ID = "till-cli";
export const CLIENT_IP_HEADER = "x-till-client-ip";

export interface AuthHooks {
  /** Runs after better-auth created an organization: the seller profile is made here. */
  afterCreateOrganization?(organization: { id: string; name: string; slug: string }): Promise<void>;
  /** Runs before better-auth deletes an organization: throws an APIError to refuse. */
  beforeDeleteOrganization?(organizationId: string): Promise<void>;
}

export interface AuthOptionsDeps {
  config: Readonly<Config>;
  db: Db;
  mailer: Mailer;
  hooks?: AuthHooks;
}

function assertTeamName(name: unknown): void {
  if (typeof name !== "string" || name.trim().length < 1) {
    throw APIError.from("BAD_REQUEST", {
      code: "INVALID_TEAM_NAME",
      message: "Team name must be at least 1 character",
    });
  }
}

// The username plugin's hooks read `ctx.body.username` on these paths before the body is validated,
// so a JSON `null` or an empty body threw a TypeError (a 500). Refused here first, as better-auth
// answers any other non-object body.
const USERNAME_HOOK_PATHS = new Set(["/sign-up/email", "/update-user"]);
const objectBodyFirst = createAuthMiddleware(async (ctx) => {
  if (!USERNAME_HOOK_PATHS.has(ctx.path) || (ctx.body !== null && ctx.body !== undefined)) return;
  throw APIError.from("BAD_REQUEST", {
    code: "VALIDATION_ERROR",
    message: `[body] Invalid input: expected object, received ${String(ctx.body)}`,
  });
});

export const organizationRoles = { owner: ownerAc, admin: adminAc, member: memberAc };

export function buildPlugins(deps: AuthOptionsDeps) {
  const { config, mailer } = deps;
  const core = [
    organization({
      ac: defaultAc as never,
      roles: organizationRoles as never,
      teams: {
        enabled: true,
        maximumTeams: config.auth.organizationLimits.teams,
        maximumMembersPerTeam: config.auth.organizationLimits.membersPerTeam,
        allowRemovingAllTeams: true,
      },
      allowUserToCreateOrganization: (user) =>
        mayCreateOrganization(config, (user as { role?: string | null }).role),
      organizationLimit: config.auth.organizationLimits.organizationsPerUser,
      membershipLimit: config.auth.organizationLimits.members,
      invitationLimit: config.auth.organizationLimits.invitations,
      dynamicAccessControl: {
        enabled: true,
        maximumRolesPerOrganization: config.auth.organizationLimits.roles,
      },
      requireEmailVerificationOnInvitation: true,
      sendInvitationEmail: async (data) => {
        const link = `${config.baseUrl}/accept-invitation/${data.id}`;
        await mailer.send({
          kind: "invitation",
          to: data.email,
          subject: `${data.inviter.user.name} invited you to ${data.organization.name} on till`,
          text: `You have been invited to join ${data.organization.name} as ${data.role}.\n\nAccept: ${link}\n`,
          link,
        });
      },
      organizationHooks: {
        // better-auth accepts an empty team name; a team needs at least one visible character.
        beforeCreateTeam: async ({ team }) => assertTeamName(team.name),
        beforeUpdateTeam: async ({ updates }) => {
          if (updates.name !== undefined) assertTeamName(updates.name);
        },
        beforeDeleteOrganization: async ({ organization: org }) => {
          await deps.hooks?.beforeDeleteOrganization?.(org.id);
        },
        afterCreateOrganization: async ({ organization: org }) => {
          await deps.hooks?.afterCreateOrganization?.({
            id: org.id,
            name: org.name,
            slug: org.slug,
          });
        },
      },
    }),
    // Roles listed explicitly: without them better-auth accepts any string in set-role.
    admin({
      defaultRole: "user",
      adminRoles: ["admin"],
      ac: adminAccess.defaultAc as never,
      roles: { admin: adminAccess.adminAc, user: adminAccess.userAc } as never,
    }),
    deviceAuthorization({
      expiresIn: config.auth.device.expiresIn as "30m",
      interval: config.auth.device.interval as "5s",
      deviceCodeLength: 40,
      userCodeLength: 8,
      validateClient: (clientId) => clientId === CLI_CLIENT_ID,
      verificationUri: "/device",
    }),
    bearer(),
    username(),
    deletionGuard(deps.db),
    passwordLengthMessages({
      min: config.auth.minPasswordLength,
      max: config.auth.maxPasswordLength,
    }),
    // After bearer(), whose hook turns a bearer token into the session these revocations check.
    sessionHandles({
      deleteByHandle: (handle, userId) => deleteSessionByHandle(deps.db, handle, userId),
      deleteOthers: (userId, keep, device) => deleteOtherSessions(deps.db, userId, keep, device),
    }),
  ] as const;
  const c = config.auth.captcha;
  const optional: BetterAuthPlugin[] = [];
  if (c) {
    optional.push(
      captcha({
        provider: c.provider as "cloudflare-turnstile",
        secretKey: c.secretKey,
        endpoints: [...c.endpoints],
        ...(c.siteVerifyUrl ? { siteVerifyURLOverride: c.siteVerifyUrl } : {}),
      }) as unknown as BetterAuthPlugin,
    );
  }
  const social = overriddenProviders(config);
  if (social) optional.push(social);
  return { core, optional };
}

/** Everything but the plugins, which createAuth passes with their types intact. */
export function buildAuthOptions(deps: AuthOptionsDeps): Omit<BetterAuthOptions, "plugins"> {
  const { config, mailer } = deps;
  return {
    appName: "till",
    baseURL: config.baseUrl,
    basePath: "/api/auth",
    secret: config.authSecret,
    trustedOrigins: [...config.trustedOrigins],
    // Session tokens and verification identifiers (reset and delete-account links) are stored as
    // hashes: a copy of the database signs nobody in.
    database: hashingSessionTokens(
      drizzleAdapter(deps.db as never, { provider: "pg", schema, transaction: true }),
    ),
    verification: { storeIdentifier: "hashed" },
    telemetry: { enabled: false },
    advanced: {
      database: { generateId: "uuid" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: config.baseUrl.startsWith("https://"),
      // better-auth turns origin checks off when it detects a test runner (NODE_ENV=test, VITEST);
      // till keeps them on everywhere, so the tests exercise what production runs.
      disableOriginCheck: false,
      disableCSRFCheck: false,
    },
    rateLimit: {
      enabled: config.auth.rateLimit,
      window: 60,
      max: 100,
      // better-auth's window only resets after a quiet minute, so a CLI polling every 5 s got a 429
      // after 100 polls (about 8 minutes) although its code lasts 30. The device plugin enforces
      // RFC 8628's own limit per code instead: slow_down when polled faster than the interval.
      customRules: { "/device/token": false },
    },
    emailAndPassword: {
      enabled: true,
      disableSignUp: config.auth.disableSignUp,
      requireEmailVerification: config.auth.requireEmailVerification,
      minPasswordLength: config.auth.minPasswordLength,
      maxPasswordLength: config.auth.maxPasswordLength,
      resetPasswordTokenExpiresIn: 3600,
      revokeSessionsOnPasswordReset: true,
      ...(config.command === "test" ? { password: fastTestHasher } : {}),
      sendResetPassword: async ({ user, url }) => {
        await mailer.send({
          kind: "reset-password",
          to: user.email,
          subject: "Reset your till password",
          text: `Reset your password: ${url}\n\nThe link is valid for one hour.`,
          link: url,
        });
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: true,
      expiresIn: 24 * 3600,
      beforeEmailVerification: async (user) =>
        promoteOnVerification(deps.db, config, user as { email: string; role?: string | null }),
      sendVerificationEmail: async ({ user, url }) => {
        await mailer.send({
          kind: "verify-email",
          to: user.email,
          subject: "Verify your email for till",
          text: `Confirm your email address: ${url}\n`,
          link: url,
        });
      },
    },
    socialProviders: builtInProviders(config),
    account: {
      accountLinking: {
        enabled: true,
        allowDifferentEmails: false,
        allowUnlinkingAll: config.auth.allowUnlinkingAll,
      },
    },
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
      freshAge: 60 * 60 * 24,
      cookieCache: { enabled: true, maxAge: 5 * 60 },
      // Which OAuth client (the device flow's client id, e.g. till-cli) obtained the session; null
      // for browser sign-ins. Lets "revoke other sessions" keep the CLI signed in unless asked.
      additionalFields: { clientId: { type: "string", required: false, input: false } },
    },
    hooks: { before: objectBodyFirst },
    databaseHooks: {
      user: { create: { before: async (user) => adminRoleOnCreate(config, user) } },
      session: {
        create: { before: async (session, ctx) => ({ data: markDeviceSession(session, ctx) }) },
      },
    },
    user: {
      changeEmail: {
        enabled: true,
        // An address nobody has verified yet is switched at once (a new verification mail goes to it).
        updateEmailWithoutVerification: true,
        sendChangeEmailConfirmation: async ({ user, newEmail, url }) => {
          await mailer.send({
            kind: "change-email",
            to: user.email,
            subject: "Confirm the change of your till email",
            text: `Someone asked to change the email of your till account to ${newEmail}. Approve: ${url}\n`,
            link: url,
          });
        },
      },
      deleteUser: {
        enabled: config.auth.allowDeleteUser,
        deleteTokenExpiresIn: 24 * 3600,
        beforeDelete: async (u) => assertUserDeletable(deps.db, u.id),
        ...(config.auth.deleteUserEmailConfirmation
          ? {
              sendDeleteAccountVerification: async ({
                user,
                url,
              }: {
                user: { email: string };
                url: string;
              }) => {
                await mailer.send({
                  kind: "delete-account",
                  to: user.email,
                  subject: "Confirm deleting your till account",
                  text: `Delete your account: ${url}\n\nThe link is valid for 24 hours.`,
                  link: url,
                });
              },
            }
          : {}),
      },
    },
  };
}

// Password hashing costs ~100 ms by design; tests create many users, so `command: "test"` uses a
// cheaper scrypt setting. Never used outside tests.
const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: { N: number },
) => Promise<Buffer>;
const fastTestHasher = {
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scrypt(password.normalize("NFKC"), salt, 32, { N: 1024 });
    return `${salt.toString("hex")}:${key.toString("hex")}`;
  },
  async verify({ hash, password }: { hash: string; password: string }): Promise<boolean> {
    const [salt, key] = hash.split(":");
    if (!salt || !key) return false;
    const derived = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "hex"), 32, {
      N: 1024,
    });
    return timingSafeEqual(derived, Buffer.from(key, "hex"));
  },
};
