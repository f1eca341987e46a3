// `till logs tail`: follows GET /v1/cli/logs/{organization_id} (server-sent events) and prints each
// request that passes the filters; reconnects with backoff when the stream drops.
import { networkFailure } from "../lib/api.ts";
import type { CommandContext } from "../lib/command.ts";
import type { LogsTailFlags } from "../commands/logs-flags.ts";
import { AbortError, ApiResponseError } from "../lib/errors.ts";
import { requireToken } from "../lib/session.ts";
import { eventMatcher, sseMessages } from "../lib/sse.ts";

interface Entry {
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  token: { kind: "user" | "organization"; id: string | null };
}

/** Whether a request passes `till logs tail`'s --status, --method and --path filters. */
export function requestFilter(
  flags: Pick<LogsTailFlags, "status" | "method" | "path">,
): (e: Entry) => boolean {
  const path = flags.path ? eventMatcher([flags.path]) : () => true;
  return (e) =>
    (flags.status.length === 0 ||
      flags.status.some((s) =>
        s.endsWith("xx") ? String(e.status)[0] === s[0] : Number(s) === e.status,
      )) &&
    (flags.method.length === 0 || flags.method.includes(e.method)) &&
    path(e.path);
}

export async function tailLogs(
  ctx: CommandContext,
  organizationId: string,
  flags: Pick<LogsTailFlags, "status" | "method" | "path">,
): Promise<void> {
  const token = requireToken(ctx.session);
  const wanted = requestFilter(flags);
  const url = `${ctx.session.server}/v1/cli/logs/${organizationId}`;
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  let connected = false;
  let attempt = 0;
  while (!stop.signal.aborted) {
    try {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
        signal: stop.signal,
      });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => ({}))) as { error?: string; detail?: unknown };
        throw new ApiResponseError(
          res.status,
          body.error ?? `HTTP ${res.status}`,
          body.detail ?? "",
        );
      }
      for await (const message of sseMessages(res.body as ReadableStream<Uint8Array>)) {
        const data = JSON.parse(message.data) as Entry & { key?: string };
        if (data.key === "connected") {
          if (!connected && !ctx.out.json)
            ctx.out.note(ctx.out.dim("Tailing API requests (^C to quit)."));
          connected = true;
          attempt = 0;
          continue;
        }
        if (!wanted(data)) continue;
        if (ctx.out.json) process.stdout.write(`${JSON.stringify(data)}\n`);
        else
          process.stdout.write(
            `${data.time.slice(11, 19)}  ${data.status}  ${data.method.padEnd(6)} ${data.path}  ${data.duration_ms} ms  ${data.request_id}  ${data.token.kind}${data.token.id ? ` ${data.token.id}` : ""}\n`,
          );
      }
    } catch (err) {
      if (stop.signal.aborted) break;
      const unreachable = networkFailure(err);
      if (unreachable && !connected)
        throw new AbortError(`Could not reach till at ${ctx.session.server} (${unreachable}).`);
      if (err instanceof ApiResponseError && err.status < 500) throw err;
      if (err instanceof AbortError && !(err instanceof ApiResponseError)) throw err;
    }
    if (stop.signal.aborted) break;
    const delay = Math.min(30_000, 1000 * 2 ** attempt++);
    ctx.out.note(ctx.out.dim(`connection lost; reconnecting in ${delay / 1000} s`));
    await new Promise((r) => setTimeout(r, delay));
  }
}
