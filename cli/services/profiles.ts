// Saved profiles and the settings a command runs with. Tokens are never printed.
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { renderFields } from "../lib/output.ts";
import { printTable } from "../lib/resource.ts";
import { forgetProfile, readStore, storePath, writeStore } from "../lib/store.ts";

interface ProfileRow {
  name: string;
  current: boolean;
  /** False for a profile logged out, which keeps its server for the next `till login`. */
  logged_in: boolean;
  server: string;
  user: string | null;
  organization: string | null;
  token_kind: string;
  expires_at: string | null;
}

export async function listProfiles(ctx: CommandContext): Promise<void> {
  const store = readStore(ctx.session.env.configDir);
  const rows: ProfileRow[] = Object.entries(store.profiles).map(([name, p]) => ({
    name,
    current: name === ctx.session.profileName,
    logged_in: true,
    server: p.server,
    user: p.userEmail,
    organization: p.organizationSlug ?? p.organizationId,
    token_kind: p.tokenKind,
    expires_at: p.expiresAt,
  }));
  for (const [name, server] of Object.entries(store.servers ?? {}))
    if (!store.profiles[name])
      rows.push({
        name,
        current: name === ctx.session.profileName,
        logged_in: false,
        server,
        user: null,
        organization: null,
        token_kind: "none",
        expires_at: null,
      });
  await printTable(ctx, { items: rows }, rows, [
    { header: "", value: (r) => (r.current ? "*" : " ") },
    { header: "name", value: (r) => r.name },
    { header: "server", value: (r) => r.server },
    { header: "user", value: (r) => (r.logged_in ? r.user : "(logged out)") },
    { header: "organization", value: (r) => r.organization },
  ]);
}

function assertExists(ctx: CommandContext, name: string, loggedOut = false): void {
  const store = readStore(ctx.session.env.configDir);
  if (!store.profiles[name] && !(loggedOut && store.servers?.[name]))
    throw new AbortError(`No profile "${name}".`, {
      hint: `Saved: ${Object.keys(store.profiles).join(", ") || "none (run `till login`)"}`,
      exitCode: EXIT.usage,
    });
}

export async function useProfile(ctx: CommandContext, name: string): Promise<void> {
  assertExists(ctx, name);
  const dir = ctx.session.env.configDir;
  const store = readStore(dir);
  writeStore(dir, { ...store, current: name });
  if (ctx.session.env.profile && !ctx.out.json)
    ctx.out.note(`TILL_PROFILE=${ctx.session.env.profile} is set and still wins in this shell.`);
  ctx.out.result({ current: name }, () => `Now using profile ${name}.`);
}

export async function removeSavedProfile(ctx: CommandContext, name: string): Promise<void> {
  assertExists(ctx, name, true);
  forgetProfile(ctx.session.env.configDir, name);
  ctx.out.result({ removed: name }, () => `Removed profile ${name}.`);
}

export async function showConfig(ctx: CommandContext): Promise<void> {
  const { session } = ctx;
  const config = {
    profile: session.profileName,
    server: session.server,
    token_source: session.source,
    token_kind: session.tokenKind,
    organization_id: session.organizationId,
    credentials_file: storePath(session.env.configDir),
    color: ctx.out.color,
    environment: {
      TILL_SERVER: session.env.server,
      TILL_PROFILE: session.env.profile,
      TILL_TOKEN: session.env.token ? "(set)" : null,
    },
  };
  ctx.out.result(config, () =>
    renderFields(
      [
        ["profile", config.profile],
        ["server", config.server],
        [
          "token",
          config.token_source === "none"
            ? "none"
            : `${config.token_kind} (from ${config.token_source})`,
        ],
        ["organization", config.organization_id],
        ["credentials", config.credentials_file],
        ["TILL_SERVER", config.environment.TILL_SERVER],
        ["TILL_PROFILE", config.environment.TILL_PROFILE],
        ["TILL_TOKEN", config.environment.TILL_TOKEN],
      ],
      ctx.out,
    ),
  );
}
