// Social sign-in providers from the environment (AUTH_<NAME>_CLIENT_ID / _SECRET). A provider with
// its endpoints overridden (AUTH_<NAME>_AUTHORIZATION_URL, _TOKEN_URL, _USERINFO_URL) goes through
// better-auth's generic OAuth plugin, because the built-in github/google/discord providers have their
// URLs hard-coded; the generic plugin registers it under the same id, so `/sign-in/social`,
// `/callback/<id>`, linking, `/list-accounts`, `/account-info`, `/get-access-token` and
// `/refresh-token` work the same either way. That is how self-hosted GitLab-style or enterprise
// endpoints are used, and how tests run the code flow against a local provider.
import type { BetterAuthPlugin } from "better-auth";
import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins";
import { socialProviderList } from "better-auth/social-providers";
import type { Config, SocialProviderConfig } from "../../config.ts";

type Profile = Record<string, unknown>;

// How each well-known provider's userinfo document names the fields better-auth needs.
const PROFILE_MAPPERS: Record<
  string,
  (p: Profile) => { name?: string; image?: string; emailVerified?: boolean }
> = {
  github: (p) => ({
    name: str(p.name) ?? str(p.login) ?? "",
    image: str(p.avatar_url) ?? "",
    emailVerified: p.email_verified === true,
  }),
  discord: (p) => ({
    name: str(p.global_name) ?? str(p.username) ?? "",
    image: discordAvatar(p),
    emailVerified: p.verified === true,
  }),
  google: (p) => ({
    name: str(p.name) ?? "",
    image: str(p.picture) ?? "",
    emailVerified: p.email_verified === true || p.email_verified === "true",
  }),
};

const DEFAULT_SCOPES: Record<string, string[]> = {
  github: ["read:user", "user:email"],
  google: ["openid", "email", "profile"],
  discord: ["identify", "email"],
};

// As better-auth's built-in discord provider builds it: animated avatars (a_…) are GIFs, and a user
// without one gets Discord's default avatar for their id (or legacy discriminator).
function discordAvatar(p: Profile): string {
  const id = String(p.id);
  const avatar = str(p.avatar);
  if (avatar)
    return `https://cdn.discordapp.com/avatars/${id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`;
  const legacy = p.discriminator !== undefined && p.discriminator !== "0";
  const index = legacy
    ? Number.parseInt(String(p.discriminator), 10) % 5
    : /^\d+$/.test(id)
      ? Number((BigInt(id) >> 22n) % 6n)
      : 0;
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

function hasOverrides(p: SocialProviderConfig): boolean {
  return Boolean(p.authorizationUrl || p.tokenUrl || p.userInfoUrl);
}

/** Built-in providers, keyed by id, for the `socialProviders` option. */
export function builtInProviders(config: Readonly<Config>) {
  const out: Record<string, { clientId: string; clientSecret: string; disableSignUp: boolean }> =
    {};
  for (const p of config.auth.socialProviders) {
    if (hasOverrides(p)) continue;
    if (!(socialProviderList as readonly string[]).includes(p.id)) {
      throw new Error(
        `AUTH_${p.id.toUpperCase()}_CLIENT_ID: "${p.id}" is not a provider better-auth knows; set AUTH_${p.id.toUpperCase()}_AUTHORIZATION_URL, _TOKEN_URL and _USERINFO_URL to use it as a generic OAuth provider`,
      );
    }
    out[p.id] = {
      clientId: p.clientId,
      clientSecret: p.clientSecret,
      disableSignUp: config.auth.disableSignUp,
    };
  }
  return out;
}

/** The generic OAuth plugin for providers whose endpoints are overridden, or null when there are none. */
export function overriddenProviders(config: Readonly<Config>): BetterAuthPlugin | null {
  const providers = config.auth.socialProviders.filter(hasOverrides);
  if (providers.length === 0) return null;
  const entries: GenericOAuthConfig[] = providers.map((p) => {
    if (!p.authorizationUrl || !p.tokenUrl || !p.userInfoUrl) {
      throw new Error(
        `AUTH_${p.id.toUpperCase()}_AUTHORIZATION_URL, _TOKEN_URL and _USERINFO_URL must be set together`,
      );
    }
    const mapper = PROFILE_MAPPERS[p.id];
    return {
      providerId: p.id,
      clientId: p.clientId,
      clientSecret: p.clientSecret,
      authorizationUrl: p.authorizationUrl,
      tokenUrl: p.tokenUrl,
      userInfoUrl: p.userInfoUrl,
      scopes: DEFAULT_SCOPES[p.id] ?? [],
      pkce: true,
      disableSignUp: config.auth.disableSignUp,
      // GitHub and Discord ids are numbers, Google's is `sub`.
      accountSubject: ({ profile }) =>
        String((profile as Profile).id ?? (profile as Profile).sub ?? ""),
      ...(mapper ? { mapProfileToUser: (profile: Profile) => mapper(profile) } : {}),
    };
  });
  return genericOAuth({ config: entries }) as unknown as BetterAuthPlugin;
}
