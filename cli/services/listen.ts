// `till listen`: follows the organization's live webhook stream over server-sent events and forwards
// each event to a local URL, byte for byte, with Standard Webhooks headers. Every stream message is
// signed by the server with the listen secret; the CLI checks that signature before forwarding, so
// what reaches the local app is exactly what the server sent. Reconnects with backoff and resumes
// with Last-Event-ID, so a laptop waking from sleep misses nothing still retained.
import net from "node:net";
import { Webhook } from "standardwebhooks";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, ApiResponseError, EXIT } from "../lib/errors.ts";
import { requireToken } from "../lib/session.ts";

export interface ListenOptions {
  forwardTo: string | null;
  events: string[] | null;
  printSecret: boolean;
  organizationId: string;
  /** Stop after this many events (tests and scripts); null runs until interrupted. */
  maxEvents: number | null;
}

interface StreamMessage {
  webhook_id: string;
  timestamp: number;
  signature: string;
  body: string;
}

export async function listen(ctx: CommandContext, options: ListenOptions): Promise<void> {
  const token = requireToken(ctx.session);
  if (options.forwardTo) await assertListening(options.forwardTo);
  const url = `${ctx.session.server}/v1/cli/listen/${options.organizationId}`;
  let lastEventId: string | null = null;
  let secret: string | null = null;
  let verifier: Webhook | null = null;
  let attempt = 0;
  let handled = 0;
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());

  while (!stop.signal.aborted) {
    try {
      const res: Response = await fetch(url, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        },
        signal: stop.signal,
      });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => ({}))) as { error?: string; detail?: unknown };
        throw new ApiResponseError(
          res.status,
          body.error ?? `HTTP ${res.status}`,
          body.detail ?? res.statusText,
        );
      }
      if (attempt > 0)
        ctx.out.note(
          ctx.out.dim(
            `${time()} reconnected${lastEventId ? `, resuming after event ${lastEventId}` : ""}`,
          ),
        );
      attempt = 0;
      for await (const message of sseMessages(res.body as ReadableStream<Uint8Array>)) {
        const data = JSON.parse(message.data) as {
          key?: string;
          secret?: string;
        } & Partial<StreamMessage>;
        if (data.key === "connected" && data.secret) {
          if (secret === null) {
            secret = data.secret;
            verifier = new Webhook(secret.replace(/^whsec_/, ""));
            if (options.printSecret) {
              process.stdout.write(`${secret}\n`);
              return;
            }
            if (!ctx.out.json)
              ctx.out.note(
                `Ready. Your webhook signing secret is ${ctx.out.bold(secret)}${options.forwardTo ? `; forwarding to ${options.forwardTo}` : ""} (^C to quit)`,
              );
          }
          continue;
        }
        if (message.id) lastEventId = message.id;
        const event = data as StreamMessage;
        verifyMessage(verifier!, event);
        const payload = JSON.parse(event.body) as { type: string; data?: { id?: string } };
        if (options.events && !options.events.includes(payload.type)) continue;
        report(ctx, {
          kind: "event",
          time: time(),
          type: payload.type,
          id: event.webhook_id,
          data_id: payload.data?.id ?? null,
        });
        if (options.forwardTo) await forward(ctx, options.forwardTo, event);
        handled++;
        if (options.maxEvents !== null && handled >= options.maxEvents) return;
      }
    } catch (err) {
      if (stop.signal.aborted) break;
      if (err instanceof ApiResponseError && err.status < 500) throw err;
      if (err instanceof AbortError && !(err instanceof ApiResponseError)) throw err;
    }
    // The stream ended or failed: back off (1 s doubling to 30 s) and resume.
    const delay = Math.min(30_000, 1000 * 2 ** attempt++);
    ctx.out.note(ctx.out.dim(`${time()} connection lost; reconnecting in ${delay / 1000} s`));
    await new Promise((r) => setTimeout(r, delay));
  }
}

function verifyMessage(verifier: Webhook, m: StreamMessage): void {
  try {
    verifier.verify(m.body, {
      "webhook-id": m.webhook_id,
      "webhook-timestamp": String(m.timestamp),
      "webhook-signature": m.signature,
    });
  } catch {
    throw new AbortError(
      `Event ${m.webhook_id} from the stream failed signature verification; not forwarding it.`,
    );
  }
}

async function forward(ctx: CommandContext, target: string, m: StreamMessage): Promise<void> {
  const started = performance.now();
  let status: number | string;
  try {
    const res = await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": m.webhook_id,
        "webhook-timestamp": String(m.timestamp),
        "webhook-signature": m.signature,
        "user-agent": "till-cli",
      },
      body: m.body,
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    status = (err as Error).name === "TimeoutError" ? "timeout" : "error";
  }
  report(ctx, {
    kind: "forward",
    time: time(),
    status,
    method: "POST",
    url: target,
    id: m.webhook_id,
    ms: Math.round(performance.now() - started),
  });
}

function report(ctx: CommandContext, line: Record<string, unknown>): void {
  if (ctx.out.json) {
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const text =
    line.kind === "event"
      ? `${line.time} --> ${line.type} [${line.id}]`
      : `${line.time} <-- [${line.status}] POST ${line.url} [${line.id}]`;
  process.stdout.write(`${text}\n`);
}

/** Fails fast, before connecting to the server, when nothing listens on the forward-to port. */
async function assertListening(target: string): Promise<void> {
  const url = new URL(target);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname === "localhost" ? "127.0.0.1" : url.hostname.replace(/^\[|\]$/g, "");
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 2000 }, () => {
      socket.end();
      resolve();
    });
    const fail = () => {
      socket.destroy();
      reject(
        new AbortError(`Nothing is listening on ${url.host}.`, {
          hint: "Start your app first, or check --forward-to.",
          exitCode: EXIT.error,
        }),
      );
    };
    socket.once("error", fail);
    socket.once("timeout", fail);
  });
}

async function* sseMessages(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ id: string | null; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | null = null;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) yield { id, data: data.join("\n") };
    }
  }
}

function time(): string {
  return new Date().toISOString().slice(11, 19);
}
