// `till listen`: follows the organization's live webhook stream over server-sent events and forwards
// each event to a local URL, byte for byte, with Standard Webhooks headers. Every stream message is
// signed by the server with the listen secret; the CLI checks that signature (not its age: a message
// may be read long after it was written, when a laptop wakes) before forwarding, and re-signs each
// forward with the time it is sent. Reconnects with backoff and resumes with Last-Event-ID, so a
// laptop waking from sleep misses nothing still retained. --replay n first resends the last n events.
import { timingSafeEqual } from "node:crypto";
import {
  signatureHeader,
  signingKeys,
  type SigningKeys,
} from "../../server/modules/webhooks/signing.ts";
import { networkFailure } from "../lib/api.ts";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, ApiResponseError } from "../lib/errors.ts";
import { requireToken } from "../lib/session.ts";
import { eventMatcher, sseMessages } from "../lib/sse.ts";
import { forward, type ForwardReport, type StreamMessage } from "./forward.ts";

export interface ListenOptions {
  forwardTo: string | null;
  events: string[] | null;
  printSecret: boolean;
  printJson: boolean;
  organizationId: string;
  /** Stop after this many events (tests and scripts); null runs until interrupted. */
  maxEvents: number | null;
  /** Resend the organization's last n events first; null starts from now. */
  replay?: number | null;
}

export async function listen(ctx: CommandContext, options: ListenOptions): Promise<void> {
  const token = requireToken(ctx.session);
  const url = `${ctx.session.server}/v1/cli/listen/${options.organizationId}`;
  const wanted = eventMatcher(options.events);
  let lastEventId: string | null = null;
  let secret: string | null = null;
  let keys: SigningKeys | null = null;
  let attempt = 0;
  let handled = 0;
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());

  while (!stop.signal.aborted) {
    try {
      // Replay only on the first connection: later ones resume after the last event handled, and
      // one that drops before any event arrives asks for the same last n again (none was handled).
      const replay = options.replay && lastEventId === null ? `?replay=${options.replay}` : "";
      const res: Response = await fetch(`${url}${replay}`, {
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
            keys = signingKeys(secret);
            if (options.printSecret) {
              ctx.out.result({ secret }, () => secret!);
              return;
            }
            if (!ctx.out.json)
              ctx.out.note(
                `Ready. Your webhook signing secret is ${ctx.out.bold(secret)}${options.forwardTo ? `; forwarding to ${options.forwardTo}` : ""} (^C to quit)`,
              );
          }
          continue;
        }
        const event = data as StreamMessage;
        verifyMessage(keys!, event);
        const payload = JSON.parse(event.body) as { type: string; data?: { id?: string } };
        if (wanted(payload.type)) {
          report(ctx, {
            kind: "event",
            time: time(),
            type: payload.type,
            id: event.webhook_id,
            data_id: payload.data?.id ?? null,
            ...(options.printJson ? { payload } : {}),
          });
          if (options.forwardTo)
            await forward(event, {
              target: options.forwardTo,
              keys: keys!,
              signal: stop.signal,
              report: (line) => report(ctx, line),
            });
          if (stop.signal.aborted) break;
          handled++;
        }
        // Only once the event is handled: a reconnect resumes after the last one forwarded.
        if (message.id) lastEventId = message.id;
        if (options.maxEvents !== null && handled >= options.maxEvents) return;
      }
    } catch (err) {
      if (stop.signal.aborted) break;
      const unreachable = networkFailure(err);
      // Before the first connection a failure is a wrong URL or a stopped server: say so and stop.
      if (unreachable && secret === null)
        throw new AbortError(`Could not reach till at ${ctx.session.server} (${unreachable}).`, {
          hint: "Is the server running (`till dev`)? Set --server or TILL_SERVER to another URL.",
        });
      if (err instanceof ApiResponseError && err.status < 500) throw err;
      if (err instanceof AbortError && !(err instanceof ApiResponseError)) throw err;
    }
    if (stop.signal.aborted) break;
    // The stream ended or failed: back off (1 s doubling to 30 s) and resume.
    const delay = Math.min(30_000, 1000 * 2 ** attempt++);
    ctx.out.note(ctx.out.dim(`${time()} connection lost; reconnecting in ${delay / 1000} s`));
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** An HMAC must match; the timestamp may be old (the message waited in a socket during a sleep). */
function verifyMessage(keys: SigningKeys, m: StreamMessage): void {
  const expected = signatureHeader(keys, m.webhook_id, m.timestamp, m.body)
    .split(" ")
    .map((part) => Buffer.from(part));
  const ok = String(m.signature)
    .split(" ")
    .some((part) => {
      const got = Buffer.from(part);
      return expected.some((e) => e.length === got.length && timingSafeEqual(e, got));
    });
  if (!ok)
    throw new AbortError(
      `Event ${m.webhook_id} from the stream failed signature verification; not forwarding it.`,
    );
}

type Line =
  | ForwardReport
  | {
      kind: "event";
      time: string;
      type: string;
      id: string;
      data_id: string | null;
      payload?: unknown;
    };

function report(ctx: CommandContext, line: Line): void {
  if (ctx.out.json) {
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  if (line.kind === "event") {
    process.stdout.write(`${line.time} --> ${line.type} [${line.id}]\n`);
    if (line.payload !== undefined)
      process.stdout.write(`${JSON.stringify(line.payload, null, 2)}\n`);
    return;
  }
  const text = `${line.time} <-- [${line.status}] POST ${line.url} [${line.id}]`;
  if (line.error) ctx.out.note(`${text} ${line.error}`);
  else process.stdout.write(`${text}\n`);
}

function time(): string {
  return new Date().toISOString().slice(11, 19);
}
