// What every command action starts from: global flags → session (server, token), output mode and
// an API client. Loaded lazily: `till --help` must not pay for the HTTP client or config parsing.
import type { Command } from "commander";
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

/** The organization a user-token command acts on: --org, else the profile's; org tokens imply theirs. */
export function organizationParam(
  ctx: CommandContext,
  flag: string | undefined,
): string | undefined {
  if (ctx.session.tokenKind === "organization") return undefined;
  return flag ?? ctx.session.organizationId ?? undefined;
}
