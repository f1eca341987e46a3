// Parts of the configuration read from more than one variable or from disk; config.ts calls them with
// the environment it was given (it stays the only reader of process.env).
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A social sign-in provider configured by AUTH_<NAME>_CLIENT_ID and AUTH_<NAME>_CLIENT_SECRET. */
export interface SocialProviderConfig {
  id: string;
  clientId: string;
  clientSecret: string;
  /** Optional endpoint overrides (AUTH_<NAME>_AUTHORIZATION_URL, _TOKEN_URL, _USERINFO_URL). */
  authorizationUrl?: string;
  tokenUrl?: string;
  userInfoUrl?: string;
}

// In `till dev` a secret is generated once and kept beside the database, so sessions survive restarts
// without asking a newcomer to configure anything.
export function devAuthSecret(dataDir: string): string {
  const file = path.join(dataDir, "auth-secret");
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length >= 32) return secret;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

const PROVIDER_ID = /^AUTH_([A-Z0-9]+)_CLIENT_ID$/;

export function socialProviders(env: Env): SocialProviderConfig[] {
  const providers: SocialProviderConfig[] = [];
  for (const [key, clientId] of Object.entries(env)) {
    const name = PROVIDER_ID.exec(key)?.[1];
    if (!name || !clientId) continue;
    const clientSecret = env[`AUTH_${name}_CLIENT_SECRET`];
    if (!clientSecret)
      throw new ConfigError(
        `Invalid configuration:\n  AUTH_${name}_CLIENT_SECRET: required when AUTH_${name}_CLIENT_ID is set`,
      );
    const provider: SocialProviderConfig = { id: name.toLowerCase(), clientId, clientSecret };
    for (const [field, suffix] of [
      ["authorizationUrl", "AUTHORIZATION_URL"],
      ["tokenUrl", "TOKEN_URL"],
      ["userInfoUrl", "USERINFO_URL"],
    ] as const) {
      const value = env[`AUTH_${name}_${suffix}`];
      if (!value) continue;
      if (!URL.canParse(value))
        throw new ConfigError(`Invalid configuration:\n  AUTH_${name}_${suffix}: must be a URL`);
      provider[field] = value;
    }
    providers.push(provider);
  }
  return providers.sort((a, b) => a.id.localeCompare(b.id));
}
