// The GitHub adapter: invites the customer's linked GitHub account to the repository with the
// benefit's permission (PUT /repos/{owner}/{repo}/collaborators/{login}), and on revoke removes the
// collaborator and cancels an invitation not yet accepted. better-auth stores the numeric GitHub
// user id; the login the collaborator API wants is read from GET /user/{id}.
import { callApi, GrantFailure, messageOf } from "./http.ts";

export interface GitHubConfig {
  apiUrl: string;
  token: string | null;
}

function headers(config: GitHubConfig): Record<string, string> {
  if (!config.token)
    throw new GrantFailure(
      "github_not_configured",
      "GitHub is not configured on this till server (GITHUB_TOKEN).",
    );
  return {
    authorization: `Bearer ${config.token}`,
    "x-github-api-version": "2022-11-28",
    "user-agent": "till",
  };
}

function failure(action: string, status: number, body: unknown): GrantFailure {
  const type =
    status === 404
      ? "github_not_found"
      : status === 403
        ? "github_forbidden"
        : status === 401
          ? "github_unauthorized"
          : "github_error";
  return new GrantFailure(type, `GitHub refused to ${action} (${status}): ${messageOf(body)}`);
}

export async function githubLogin(config: GitHubConfig, accountId: string): Promise<string> {
  const res = await callApi("github", `${config.apiUrl}/user/${encodeURIComponent(accountId)}`, {
    method: "GET",
    headers: headers(config),
  });
  const login = (res.body as { login?: unknown } | null)?.login;
  if (res.status !== 200 || typeof login !== "string")
    throw failure("find the user", res.status, res.body);
  return login;
}

const repoPath = (config: GitHubConfig, owner: string, name: string) =>
  `${config.apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;

export async function addCollaborator(
  config: GitHubConfig,
  owner: string,
  name: string,
  login: string,
  permission: string,
): Promise<void> {
  const res = await callApi(
    "github",
    `${repoPath(config, owner, name)}/collaborators/${encodeURIComponent(login)}`,
    { method: "PUT", headers: headers(config), body: { permission } },
  );
  // 201: invitation sent; 204: already a collaborator (permission updated).
  if (res.status !== 201 && res.status !== 204)
    throw failure("add the collaborator", res.status, res.body);
}

export async function removeCollaborator(
  config: GitHubConfig,
  owner: string,
  name: string,
  login: string,
): Promise<void> {
  const h = headers(config);
  const base = repoPath(config, owner, name);
  const removed = await callApi("github", `${base}/collaborators/${encodeURIComponent(login)}`, {
    method: "DELETE",
    headers: h,
  });
  if (removed.status !== 204 && removed.status !== 404)
    throw failure("remove the collaborator", removed.status, removed.body);
  const invitations = await callApi("github", `${base}/invitations?per_page=100`, {
    method: "GET",
    headers: h,
  });
  if (invitations.status !== 200 || !Array.isArray(invitations.body)) return;
  for (const inv of invitations.body as { id: number; invitee?: { login?: string } | null }[]) {
    if (inv.invitee?.login?.toLowerCase() !== login.toLowerCase()) continue;
    const res = await callApi("github", `${base}/invitations/${inv.id}`, {
      method: "DELETE",
      headers: h,
    });
    if (res.status !== 204 && res.status !== 404)
      throw failure("cancel the invitation", res.status, res.body);
  }
}
