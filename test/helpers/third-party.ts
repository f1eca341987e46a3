// A local HTTP server that plays the parts of Discord's and GitHub's REST APIs that benefit grants
// call, with their status codes and error bodies: Discord under /discord (guild members and roles),
// GitHub under /github (users, collaborators, invitations). Tests inject outages (every request
// answers 503), one-off failures (404, 403, 429 with Retry-After) and read the resulting state.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface InjectedFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Only requests whose "METHOD path" contains this are failed. */
  match?: string;
}

export interface ThirdPartyServer {
  url: string;
  discordUrl: string;
  githubUrl: string;
  botToken: string;
  githubToken: string;
  /** Discord: guild id → member id → role ids. */
  guilds: Map<string, Map<string, Set<string>>>;
  /** Discord user ids that exist. */
  discordUsers: Set<string>;
  /** GitHub: numeric id → login. */
  githubUsers: Map<string, string>;
  /** GitHub: "owner/name" → collaborators (login → permission) and pending invitations. */
  repos: Map<
    string,
    {
      collaborators: Map<string, string>;
      invitations: { id: number; login: string; permission: string }[];
      forbidden?: boolean;
    }
  >;
  requests: string[];
  /** While true every request answers 503, as during an outage. */
  down: boolean;
  failNext(...failures: InjectedFailure[]): void;
  stop(): Promise<void>;
}

export async function startThirdPartyServer(): Promise<ThirdPartyServer> {
  let invitationSeq = 1;
  const queue: InjectedFailure[] = [];
  const state = {
    botToken: "discord-bot-token-test",
    githubToken: "github-token-test",
    guilds: new Map<string, Map<string, Set<string>>>(),
    discordUsers: new Set<string>(),
    githubUsers: new Map<string, string>(),
    repos: new Map<
      string,
      {
        collaborators: Map<string, string>;
        invitations: { id: number; login: string; permission: string }[];
        forbidden?: boolean;
      }
    >(),
    requests: [] as string[],
    down: false,
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const line = `${req.method} ${path}`;
    state.requests.push(line);
    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        ...(payload !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      });
      res.end(payload !== undefined ? JSON.stringify(payload) : undefined);
    };
    if (state.down) return send(503, { message: "Service Unavailable" });
    const i = queue.findIndex((f) => !f.match || line.includes(f.match));
    if (i >= 0) {
      const f = queue.splice(i, 1)[0]!;
      return send(f.status, f.body ?? { message: `injected ${f.status}` }, f.headers ?? {});
    }
    if (path.startsWith("/discord/"))
      return discord(
        req.method!,
        path.slice("/discord".length),
        req.headers.authorization,
        body,
        send,
      );
    if (path.startsWith("/github/"))
      return github(
        req.method!,
        path.slice("/github".length),
        req.headers.authorization,
        body,
        send,
      );
    send(404, { message: "Not Found" });
  });

  type Send = (status: number, payload?: unknown, headers?: Record<string, string>) => void;

  function discord(
    method: string,
    path: string,
    auth: string | undefined,
    body: Record<string, unknown>,
    send: Send,
  ) {
    if (auth !== `Bot ${state.botToken}`)
      return send(401, { message: "401: Unauthorized", code: 0 });
    let m = path.match(/^\/guilds\/(\d+)\/members\/(\d+)$/);
    if (m) {
      const guild = state.guilds.get(m[1]!);
      if (!guild) return send(404, { message: "Unknown Guild", code: 10004 });
      const userId = m[2]!;
      if (method === "PUT") {
        if (!state.discordUsers.has(userId))
          return send(404, { message: "Unknown User", code: 10013 });
        if (typeof body.access_token !== "string" || !body.access_token)
          return send(403, { message: "Missing Access", code: 50001 });
        if (guild.has(userId)) return send(204);
        guild.set(userId, new Set((body.roles as string[] | undefined) ?? []));
        return send(201, { user: { id: userId }, roles: [...guild.get(userId)!] });
      }
      if (method === "DELETE") {
        if (!guild.delete(userId)) return send(404, { message: "Unknown Member", code: 10007 });
        return send(204);
      }
    }
    m = path.match(/^\/guilds\/(\d+)\/members\/(\d+)\/roles\/(\d+)$/);
    if (m) {
      const member = state.guilds.get(m[1]!)?.get(m[2]!);
      if (!member) return send(404, { message: "Unknown Member", code: 10007 });
      if (method === "PUT") member.add(m[3]!);
      else if (method === "DELETE") member.delete(m[3]!);
      return send(204);
    }
    send(404, { message: "404: Not Found", code: 0 });
  }

  function github(
    method: string,
    path: string,
    auth: string | undefined,
    body: Record<string, unknown>,
    send: Send,
  ) {
    if (auth !== `Bearer ${state.githubToken}`) return send(401, { message: "Bad credentials" });
    let m = path.match(/^\/user\/(\d+)$/);
    if (m && method === "GET") {
      const login = state.githubUsers.get(m[1]!);
      return login ? send(200, { id: Number(m[1]), login }) : send(404, { message: "Not Found" });
    }
    m = path.match(/^\/repos\/([^/]+)\/([^/]+)\/(collaborators|invitations)(?:\/([^/]+))?$/);
    if (!m) return send(404, { message: "Not Found" });
    const repo = state.repos.get(`${m[1]}/${m[2]}`);
    if (!repo) return send(404, { message: "Not Found" });
    if (repo.forbidden) return send(403, { message: "Resource not accessible by integration" });
    const [, , , kind, item] = m;
    if (kind === "collaborators" && item) {
      if (method === "PUT") {
        if (![...state.githubUsers.values()].includes(item))
          return send(404, { message: "Not Found" });
        if (repo.collaborators.has(item)) {
          repo.collaborators.set(item, String(body.permission));
          return send(204);
        }
        const invitation = {
          id: invitationSeq++,
          login: item,
          permission: String(body.permission),
        };
        repo.invitations.push(invitation);
        return send(201, {
          id: invitation.id,
          invitee: { login: item },
          permissions: invitation.permission,
        });
      }
      if (method === "DELETE") {
        repo.collaborators.delete(item);
        return send(204);
      }
    }
    if (kind === "invitations" && !item && method === "GET")
      return send(
        200,
        repo.invitations.map((i) => ({
          id: i.id,
          invitee: { login: i.login },
          permissions: i.permission,
        })),
      );
    if (kind === "invitations" && item && method === "DELETE") {
      const before = repo.invitations.length;
      repo.invitations = repo.invitations.filter((i) => String(i.id) !== item);
      return send(before === repo.invitations.length ? 404 : 204);
    }
    send(404, { message: "Not Found" });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    discordUrl: `${url}/discord`,
    githubUrl: `${url}/github`,
    failNext: (...failures: InjectedFailure[]) => void queue.push(...failures),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
