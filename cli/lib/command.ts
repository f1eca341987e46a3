// What every command action starts from: global flags → session (server, token), output mode and
// an API client. Commands only parse flags and call services; services return data.
import type { Command } from "commander";
import { createApi, type ApiClient } from "./api.ts";
import { createOutput, type Output } from "./output.ts";
import { requireToken, resolveSession, type GlobalFlags, type Session } from "./session.ts";

export interface CommandContext {
  session: Session;
  out: Output;
  /** An API client with the session's token; throws "not logged in" (exit 4) when there is none. */
  api(): ApiClient;
  /** An API client without credentials, for public endpoints such as the device flow. */
  anonymousApi(): ApiClient;
}

export function contextOf(cmd: Command): CommandContext {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const session = resolveSession(flags);
  const out = createOutput({ json: Boolean(flags.json), color: flags.color !== false, noColorEnv: session.env.noColor });
  return {
    session,
    out,
    api: () => createApi(session.server, requireToken(session)),
    anonymousApi: () => createApi(session.server, null),
  };
}

/** The organization a user-token command acts on: --org, else the profile's; org tokens imply theirs. */
export function organizationParam(ctx: CommandContext, flag: string | undefined): string | undefined {
  if (ctx.session.tokenKind === "organization") return undefined;
  return flag ?? ctx.session.organizationId ?? undefined;
}
