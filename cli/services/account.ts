// Login, logout and whoami. Login prints the code on stderr, offers to open the browser only on an
// interactive terminal that is not an SSH session, and saves the token to the profile (0600).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createApi } from "../lib/api.ts";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, ApiResponseError, EXIT } from "../lib/errors.ts";
import { renderFields } from "../lib/output.ts";
import { tokenKindOf } from "../lib/session.ts";
import { removeProfile, saveProfile, storePath } from "../lib/store.ts";
import { fetchSession, pollForToken, requestDeviceCode } from "./login.ts";

interface Organization {
  id: string;
  slug: string;
  name: string;
}

export async function login(
  ctx: CommandContext,
  flags: { org?: string | undefined; browser: boolean },
): Promise<void> {
  const { out, session } = ctx;
  // Every command would go on using TILL_TOKEN, not this login; and in CI nobody approves the code.
  if (session.source === "environment")
    throw new AbortError(
      "TILL_TOKEN is set, and commands use it rather than a login: nothing to log in to.",
      { hint: "Unset TILL_TOKEN to log in (`unset TILL_TOKEN`).", exitCode: EXIT.usage },
    );
  const code = await requestDeviceCode(ctx.anonymousApi());
  out.note(
    `To log in to ${session.server}, open ${code.verification_uri} and enter the code:\n\n    ${out.bold(code.user_code)}\n\nor open ${code.verification_uri_complete} (the code filled in).`,
  );
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY) && !out.json;
  let stopPrompt = () => {};
  if (interactive && flags.browser && !session.env.remoteSession) {
    out.note(out.dim("Press Enter to open it in your browser."));
    stopPrompt = onEnter(() => openBrowser(code.verification_uri_complete, session.env.browser));
  }
  const spinner = interactive
    ? await (await import("../ui/render.ts")).startSpinner("Waiting for approval in the browser…")
    : null;
  let token: string;
  try {
    token = await pollForToken(ctx.anonymousApi(), code, {
      onSlowDown: (s) => out.note(out.dim(`Server asked to slow down; polling every ${s} s.`)),
    });
  } finally {
    stopPrompt();
    spinner?.stop();
  }
  const api = createApi(session.server, token);
  const info = await fetchSession(api);
  if (!info) throw new AbortError("The server did not accept the new session.");
  const orgs = await api.all<Organization>("/v1/organizations/");
  const org = await chooseOrganization(orgs, flags.org, interactive, out.note);
  saveProfile(session.env.configDir, session.profileName, {
    server: session.server,
    token,
    tokenKind: "user",
    organizationId: org?.id ?? null,
    organizationSlug: org?.slug ?? null,
    userEmail: info.user.email,
    expiresAt: info.session.expiresAt ? new Date(info.session.expiresAt).toISOString() : null,
  });
  out.result(
    {
      server: session.server,
      user: info.user,
      organization: org ?? null,
      profile: session.profileName,
    },
    () =>
      [
        `Logged in to ${session.server} as ${info.user.email}.`,
        org
          ? `Organization: ${org.name} (${org.slug}).`
          : orgs.length === 0
            ? "You have no organization yet: create one with `till orgs create --name <name>`."
            : "Pick an organization with `till orgs switch <id-or-slug>`.",
      ].join("\n"),
  );
}

async function chooseOrganization(
  orgs: Organization[],
  wanted: string | undefined,
  interactive: boolean,
  note: (m: string) => void,
): Promise<Organization | null> {
  if (wanted) {
    const found = orgs.find((o) => o.id === wanted || o.slug === wanted);
    if (!found)
      throw new AbortError(`No organization "${wanted}" for this user.`, {
        hint: `Yours: ${orgs.map((o) => o.slug).join(", ") || "none"}`,
      });
    return found;
  }
  if (orgs.length <= 1) return orgs[0] ?? null;
  if (!interactive) return null;
  note(orgs.map((o, i) => `  ${i + 1}) ${o.name} (${o.slug})`).join("\n"));
  const answer = await ask(`Organization [1-${orgs.length}]: `);
  const index = Number(answer) - 1;
  return orgs[index] ?? null;
}

export async function logout(ctx: CommandContext): Promise<void> {
  const { session, out } = ctx;
  if (session.profile && session.profile.tokenKind === "user") {
    // Ending the session on the server is best effort: the local token is forgotten either way.
    await createApi(session.profile.server, session.profile.token)
      .post("/api/auth/sign-out", {})
      .catch(() => undefined);
  }
  const removed = removeProfile(session.env.configDir, session.profileName);
  const server = session.profile?.server ?? session.server;
  out.result({ loggedOut: removed, profile: session.profileName, server }, () =>
    removed
      ? `Logged out of ${server} (profile ${session.profileName}); \`till login\` logs in there again.`
      : `Profile ${session.profileName} was not logged in.`,
  );
}

export async function whoami(ctx: CommandContext): Promise<void> {
  const { session, out } = ctx;
  const api = ctx.api();
  let user: { id: string; email: string; name: string } | null = null;
  // The profile's expiry is its own token's: a TILL_TOKEN in use instead is another token.
  let expiresAt: string | null =
    session.source === "profile" ? (session.profile?.expiresAt ?? null) : null;
  if (session.tokenKind === "user") {
    const info = await fetchSession(api);
    if (!info)
      throw new ApiResponseError(401, "Unauthorized", "The saved session is no longer valid.");
    user = info.user;
    expiresAt = new Date(info.session.expiresAt).toISOString();
  }
  // A CI token made for one job may lack organizations:read: whoami still says the rest.
  let unreadable = false;
  const orgs = await api
    .get<{ items: Organization[] }>("/v1/organizations/", { page: 1, limit: 100 })
    .catch((err: unknown) => {
      if (!(err instanceof ApiResponseError) || err.status !== 403) throw err;
      unreadable = true;
      return { items: [] as Organization[] };
    });
  const org =
    orgs.items.find((o) => o.id === session.organizationId) ??
    (session.tokenKind === "organization" ? (orgs.items[0] ?? null) : null);
  const data = {
    server: session.server,
    profile: session.profileName,
    token_source: session.source,
    token_kind: session.tokenKind ?? tokenKindOf(session.token ?? ""),
    user,
    organization: org,
    expires_at: expiresAt,
    credentials_file: storePath(session.env.configDir),
  };
  out.result(data, () =>
    renderFields(
      [
        ["server", data.server],
        ["user", user ? `${user.email} (${user.id})` : "-"],
        [
          "organization",
          org
            ? `${org.name} (${org.slug}, ${org.id})`
            : unreadable
              ? "- (the token lacks organizations:read)"
              : "-",
        ],
        [
          "token",
          `${data.token_kind} token from ${data.token_source}${session.source === "profile" ? ` "${session.profileName}"` : ""}`,
        ],
        [
          "expires",
          expiresAt ??
            (data.token_kind === "organization"
              ? "- (an organization token does not tell; `till tokens list` shows it)"
              : "never"),
        ],
      ],
      out,
    ),
  );
}

function onEnter(fn: () => void): () => void {
  const rl = createInterface({ input: process.stdin });
  rl.once("line", fn);
  return () => rl.close();
}

function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) =>
    rl.question(question, (a) => {
      rl.close();
      resolve(a.trim());
    }),
  );
}

export function openBrowser(url: string, browser: string | null): void {
  const command =
    browser ??
    (process.platform === "darwin"
      ? "open"
      : process.platform === "win32"
        ? "explorer"
        : "xdg-open");
  const child = spawn(command, [url], { stdio: "ignore", detached: true });
  child.on("error", () => process.stderr.write(`Could not open a browser; visit ${url}\n`));
  child.unref();
}
