// Discord guild tokens: what the seller's "connect the till bot to a server" step hands back, a
// short signed statement of the guild id (HS256 JWT, as Polar's guild_token). Benefits accept the
// token, never a bare guild id, so a seller can only target a server the bot was installed into.
import { createHmac, timingSafeEqual } from "node:crypto";

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

function signature(secret: string, signingInput: string): string {
  return createHmac("sha256", `till-discord-guild:${secret}`)
    .update(signingInput)
    .digest("base64url");
}

export function issueDiscordGuildToken(secret: string, guildId: string): string {
  const payload = Buffer.from(
    JSON.stringify({ type: "discord_guild_token", guild_id: guildId }),
  ).toString("base64url");
  return `${HEADER}.${payload}.${signature(secret, `${HEADER}.${payload}`)}`;
}

/** The guild id the token vouches for, or null when the token is not one till signed. */
export function guildIdOf(secret: string, token: string): string | null {
  const [header, payload, sig, ...rest] = token.split(".");
  if (!header || !payload || !sig || rest.length > 0) return null;
  const expected = Buffer.from(signature(secret, `${header}.${payload}`));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      type?: unknown;
      guild_id?: unknown;
    };
    return claims.type === "discord_guild_token" &&
      typeof claims.guild_id === "string" &&
      /^\d{15,25}$/.test(claims.guild_id)
      ? claims.guild_id
      : null;
  } catch {
    return null;
  }
}
