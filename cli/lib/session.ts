// Which server and token a command uses: --server and TILL_SERVER / TILL_TOKEN (for CI) win over the
// saved profile; the profile comes from --profile, TILL_PROFILE, the one `till profiles use` chose,
// or "default". A logged-out profile keeps its server, so logging in again goes back there.
import { loadCliEnv, type CliEnv } from "../../server/config.ts";
import { AbortError, EXIT } from "./errors.ts";
import { readStore, type Profile } from "./store.ts";

export const DEFAULT_SERVER = "http://localhost:8080";

export interface GlobalFlags {
  json?: boolean;
  color?: boolean;
  profile?: string;
  server?: string;
}

export interface Session {
  env: Readonly<CliEnv>;
  profileName: string;
  server: string;
  token: string | null;
  tokenKind: "user" | "organization" | null;
  organizationId: string | null;
  source: "flag" | "environment" | "profile" | "none";
  profile: Profile | null;
}

export function tokenKindOf(token: string): "user" | "organization" {
  return token.startsWith("till_oat_") ? "organization" : "user";
}

export function resolveSession(flags: GlobalFlags): Session {
  const env = loadCliEnv();
  const store = readStore(env.configDir);
  const profileName = flags.profile ?? env.profile ?? store.current ?? "default";
  const profile = store.profiles[profileName] ?? null;
  const remembered = profile?.server ?? store.servers?.[profileName];
  if (flags.server !== undefined) checkServerUrl(flags.server, "--server");
  const server = (flags.server ?? env.server ?? remembered ?? DEFAULT_SERVER).replace(/\/+$/, "");
  if (env.token) {
    return {
      env,
      profileName,
      server,
      token: env.token,
      tokenKind: tokenKindOf(env.token),
      organizationId: null,
      source: "environment",
      profile,
    };
  }
  // A saved credential only ever goes to the server that issued it: --server or TILL_SERVER naming
  // another host runs without it (and says so when a command needs a token).
  if (profile && server === profile.server.replace(/\/+$/, "")) {
    return {
      env,
      profileName,
      server,
      token: profile.token,
      tokenKind: profile.tokenKind,
      organizationId: profile.organizationId,
      source: "profile",
      profile,
    };
  }
  return {
    env,
    profileName,
    server,
    token: null,
    tokenKind: null,
    organizationId: null,
    source: "none",
    profile,
  };
}

// `localhost:8080` would otherwise be tried as a URL of scheme "localhost:" and reported as a
// server that cannot be reached.
function checkServerUrl(value: string, name: string): void {
  if (!/^https?:$/.test(URL.parse(value)?.protocol ?? ""))
    throw new AbortError(
      `${name}: must be an http(s) URL, e.g. ${DEFAULT_SERVER}; got ${JSON.stringify(value)}`,
      { exitCode: EXIT.usage },
    );
}

export function requireToken(session: Session): string {
  if (!session.token) {
    const other = session.profile && session.profile.server !== session.server;
    throw new AbortError(`Not logged in to ${session.server}.`, {
      hint: other
        ? `Profile "${session.profileName}" is logged in to ${session.profile!.server}, and its token is only sent there. Run \`till login --server ${session.server}\` (with --profile <name> to keep both).`
        : "Run `till login`, or set TILL_TOKEN (an organization access token) for CI.",
      exitCode: EXIT.auth,
    });
  }
  return session.token;
}
