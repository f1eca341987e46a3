// The Discord adapter: adds the customer's linked Discord account to the guild with the benefit's
// role (PUT /guilds/{guild}/members/{user} with the user's OAuth token, which needs guilds.join),
// or only adds the role when they are already a member; on revoke removes the role, or kicks the
// member when the benefit says kick_member. A member or role already gone counts as revoked.
import { callApi, GrantFailure, messageOf } from "./http.ts";

export interface DiscordConfig {
  apiUrl: string;
  botToken: string | null;
}

export interface DiscordIdentity {
  accountId: string;
  accessToken: string | null;
}

function headers(config: DiscordConfig): Record<string, string> {
  if (!config.botToken)
    throw new GrantFailure(
      "discord_not_configured",
      "Discord is not configured on this till server (DISCORD_BOT_TOKEN).",
    );
  return { authorization: `Bot ${config.botToken}` };
}

function failure(action: string, status: number, body: unknown): GrantFailure {
  const type =
    status === 404
      ? "discord_not_found"
      : status === 403
        ? "discord_forbidden"
        : status === 401
          ? "discord_unauthorized"
          : "discord_error";
  return new GrantFailure(type, `Discord refused to ${action} (${status}): ${messageOf(body)}`);
}

export async function addDiscordMember(
  config: DiscordConfig,
  guildId: string,
  roleId: string,
  who: DiscordIdentity,
): Promise<void> {
  const h = headers(config);
  const member = `${config.apiUrl}/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(who.accountId)}`;
  const added = await callApi("discord", member, {
    method: "PUT",
    headers: h,
    body: { access_token: who.accessToken ?? "", roles: [roleId] },
  });
  if (added.status === 201) return;
  if (added.status !== 204) throw failure("add the member to the server", added.status, added.body);
  // 204: already a member, and Discord ignores `roles` then; add the role on its own.
  const role = await callApi("discord", `${member}/roles/${encodeURIComponent(roleId)}`, {
    method: "PUT",
    headers: h,
  });
  if (role.status !== 204) throw failure("add the role", role.status, role.body);
}

export async function removeDiscordMember(
  config: DiscordConfig,
  guildId: string,
  roleId: string,
  accountId: string,
  kick: boolean,
): Promise<void> {
  const h = headers(config);
  const member = `${config.apiUrl}/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(accountId)}`;
  const res = kick
    ? await callApi("discord", member, { method: "DELETE", headers: h })
    : await callApi("discord", `${member}/roles/${encodeURIComponent(roleId)}`, {
        method: "DELETE",
        headers: h,
      });
  if (res.status === 204 || res.status === 404) return;
  throw failure(kick ? "remove the member" : "remove the role", res.status, res.body);
}
