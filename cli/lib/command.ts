// What every command action starts from: global flags → session (server, token), output mode and
// an API client. Loaded lazily: `till --help` must not pay for the HTTP client or config parsing.
import type { Command } from "commander";
import { AbortError, EXIT } from "./errors.ts";
import type { ApiClient } from "./api.ts";
import type { Output } from "./output.ts";
import type { GlobalFlags, Session } from "./session.ts";

export interface CommandContext {
  session: Session;
  out: Output;
  /** An API client with the session's token; throws "not logged in" (exit 4) when there is none. */
  api(): ApiClient;
  /** An API client without credentials, for public endpoints such as the device flow. */
  anonymousApi(): ApiClient;
}

export async function contextOf(cmd: Command): Promise<CommandContext> {
  const [{ createApi }, { createOutput }, { requireToken, resolveSession }] = await Promise.all([
    import("./api.ts"),
    import("./output.ts"),
    import("./session.ts"),
  ]);
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const session = resolveSession(flags);
  const out = createOutput({
    json: Boolean(flags.json),
    color: flags.color !== false,
    noColorEnv: session.env.noColor,
  });
  return {
    session,
    out,
    api: () => createApi(session.server, requireToken(session)),
    anonymousApi: () => createApi(session.server, null),
  };
}

/**
 * For the streams that belong to a signed-in member (`till listen`, `till logs tail`): an
 * organization token stops before any request, since the server would refuse it anyway.
 */
export function requireUserToken(ctx: CommandContext, message: string, hint: string): void {
  if (ctx.session.tokenKind === "organization")
    throw new AbortError(message, { hint, exitCode: EXIT.auth });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization a user-token command acts on: --org (an id or a slug), else the profile's
 * selected one; an organization token implies its own (undefined). Says on stderr which one it used
 * when the choice is not obvious (a flag resolved, or the profile's default).
 */
export async function organizationParam(
  ctx: CommandContext,
  flag: string | undefined,
  options: { announce?: boolean } = {},
): Promise<string | undefined> {
  if (ctx.session.tokenKind === "organization") return undefined;
  const announce = (id: string, slug: string | null | undefined, why: string) => {
    if (options.announce && !ctx.out.json)
      ctx.out.note(ctx.out.dim(`Organization: ${slug ? `${slug} (${id})` : id}, ${why}.`));
  };
  if (flag) {
    if (UUID.test(flag)) {
      announce(
        flag,
        flag === ctx.session.organizationId ? ctx.session.profile?.organizationSlug : null,
        "from --org",
      );
      return flag;
    }
    const res = await ctx
      .api()
      .get<{ items: { id: string; slug: string }[] }>("/v1/organizations/", {
        slug: flag,
        limit: 1,
      });
    const org = res.items.find((o) => o.slug === flag);
    if (!org)
      throw new AbortError(`No organization "${flag}".`, {
        hint: "List yours with `till orgs list`.",
        exitCode: EXIT.usage,
      });
    announce(org.id, org.slug, "from --org");
    return org.id;
  }
  const id = ctx.session.organizationId;
  if (id)
    announce(
      id,
      ctx.session.profile?.organizationSlug,
      "the profile's (change with --org or `till orgs switch`)",
    );
  else await requireAnyOrganization(ctx);
  return id ?? undefined;
}

/** A user with no organization at all is told how to make one, not what the server lacks. */
async function requireAnyOrganization(ctx: CommandContext): Promise<void> {
  const res = await ctx
    .api()
    .get<{ pagination: { total_count: number } }>("/v1/organizations/", { limit: 1 });
  if (res.pagination.total_count === 0)
    throw new AbortError(
      "You have no organization yet: create one with `till orgs create --name <name>`.",
      { exitCode: EXIT.usage },
    );
}

/** Like organizationParam, but one is required (streams and triggers name it in their URL). */
export async function requireOrganization(
  ctx: CommandContext,
  flag: string | undefined,
  options: { announce?: boolean } = {},
): Promise<string> {
  const id = await organizationParam(ctx, flag, options);
  if (id) return id;
  if (ctx.session.tokenKind === "organization") {
    const org = await ctx
      .api()
      .get<{ items: { id: string }[] }>("/v1/organizations/", { limit: 1 });
    if (org.items[0]) return org.items[0].id;
  }
  throw new AbortError(
    "No organization: pass --org <id-or-slug> or pick one with `till orgs switch`.",
    {
      exitCode: EXIT.usage,
    },
  );
}
