// GET /v1/cli/listen/{organization_id}: the organization's webhook events as server-sent events,
// as they are committed, for `till listen`. The first message carries the secret the CLI signs
// forwarded events with. Each event's SSE id is its outbox seq, so a client that reconnects with
// Last-Event-ID is replayed everything after it that is still retained; a fresh stream with
// ?replay=N starts with the last N events. Events arrive through
// LISTEN/NOTIFY, so an event committed by any instance reaches listeners on every instance.
import type { Request, Response } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { assertAccessible, authOf, type Guard, sessionUserOf } from "../../lib/auth-context.ts";
import { parseParams, parseQuery } from "../../lib/validation.ts";
import { queryInt } from "../../lib/query.ts";
import { eventsAfter, latestSeq, seqBeforeLast } from "./delivery-repository.ts";
import type { NotificationHub } from "./notifications.ts";
import { listenSecret } from "./repository.ts";
import { newWebhookSecret, signatureHeader, signingKeys } from "./signing.ts";

const PAGE = 500;
const HEARTBEAT_MS = 15_000;
/** How often a stream's credential is checked again: signing out ends the stream within this. */
export const REVALIDATE_MS = 2_000;

/** Open streams, so a graceful shutdown can end them instead of waiting for clients to leave. */
export class StreamRegistry {
  readonly #open = new Set<() => void>();

  add(close: () => void): () => void {
    this.#open.add(close);
    return () => this.#open.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.#open]) close();
    this.#open.clear();
  }

  get size(): number {
    return this.#open.size;
  }
}

export interface StreamDeps {
  db: Db;
  clock: Clock;
  hub: NotificationHub;
  streams: StreamRegistry;
}

const params = z.object({ organization_id: z.uuid() });
const lastEventId = z
  .string()
  .regex(/^\d{1,18}$/)
  .transform(Number);
/** `?replay=N`: a fresh stream starts with the organization's last N events (still retained). */
const replayQuery = z.object({ replay: queryInt({ min: 1, max: 1000 }).optional() });

export function streamRouter(deps: StreamDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get("/cli/listen/:organization_id", guard(), async (req, res) => {
    const ctx = authOf(req);
    const userId = sessionUserOf(ctx, "The live stream is for a signed-in user.");
    const { organization_id: organizationId } = parseParams(params, req);
    assertAccessible(ctx, organizationId, "Organization not found.");
    const secret = await listenSecret(deps.db, userId, organizationId, newWebhookSecret());
    const resumeFrom = lastEventId.safeParse(
      req.header("last-event-id") ?? req.query.last_event_id,
    );
    const { replay } = parseQuery(replayQuery, req);
    // Last-Event-ID wins over replay: a reconnect must not send again what the client already has.
    const cursor = resumeFrom.success
      ? resumeFrom.data
      : replay
        ? await seqBeforeLast(deps.db, organizationId, replay)
        : await latestSeq(deps.db, organizationId);
    openStream(deps, req, res, organizationId, secret, cursor);
  });
  return r;
}

/** Answers with a server-sent-events stream: headers that keep proxies from buffering or caching. */
export function startEventStream(res: Response): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
}

/**
 * Keeps an open stream: a heartbeat comment, a place in the registry (so a graceful shutdown ends
 * it), and one close when either side ends it. `onClose` releases what the stream holds.
 */
export function holdStream(
  req: Request,
  res: Response,
  streams: StreamRegistry,
  onClose: () => void,
  stillAllowed?: () => Promise<boolean>,
): { readonly closed: boolean } {
  const state = { closed: false };
  const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
  // The credential that opened the stream is checked again now and then: a stream must not keep
  // delivering after sign-out, a revoked session or a deleted token. A failed check (the database
  // briefly away) keeps the stream; only a definite "no" ends it.
  let checking = false;
  const recheck = stillAllowed
    ? setInterval(() => {
        if (checking || state.closed) return;
        checking = true;
        stillAllowed()
          .then((ok) => {
            if (!ok) close();
          })
          .catch(() => {})
          .finally(() => {
            checking = false;
          });
      }, REVALIDATE_MS)
    : null;
  const close = () => {
    if (state.closed) return;
    state.closed = true;
    onClose();
    clearInterval(heartbeat);
    if (recheck) clearInterval(recheck);
    unregister();
    res.end();
  };
  const unregister = streams.add(close);
  req.on("close", close);
  return state;
}

function openStream(
  deps: StreamDeps,
  req: Request,
  res: Response,
  organizationId: string,
  secret: string,
  startAfter: number,
): void {
  startEventStream(res);
  res.write(`retry: 1000\ndata: ${JSON.stringify({ key: "connected", secret })}\n\n`);

  let cursor = startAfter;
  let running = false;
  let again = false;
  // Seqs at or below the cursor that were announced but not sent: a transaction that took its seqs
  // before another's yet committed after it. Their span is read again and those go out, so nothing
  // is skipped. (An announced range may hold other organizations' seqs; those are never found.)
  const late = new Set<number>();
  const sent = new Set<number>();

  // Each message is the delivery `till listen` forwards: the exact body and Standard Webhooks headers
  // signed with the listen secret, so the CLI can check what it got before passing it on. The
  // timestamp is when the server wrote it; a client may read it much later (a laptop asleep with
  // the socket open), so the CLI checks only the signature and re-signs when it forwards.
  // A late event goes without an SSE id: its seq is below the client's Last-Event-ID, and moving that
  // back would replay, after a reconnect, events the client already has.
  const keys = signingKeys(secret);
  const write = (row: { id: string; seq: number; payload: unknown }, late = false) => {
    if (sent.has(row.seq)) return;
    sent.add(row.seq);
    if (sent.size > 10_000) sent.delete(sent.values().next().value!);
    const body = JSON.stringify(row.payload);
    const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
    const message = {
      webhook_id: row.id,
      timestamp,
      signature: signatureHeader(keys, row.id, timestamp, body),
      body,
    };
    res.write(`${late ? "" : `id: ${row.seq}\n`}data: ${JSON.stringify(message)}\n\n`);
  };

  const catchUp = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        for (;;) {
          const rows = await eventsAfter(deps.db, organizationId, cursor, PAGE);
          for (const row of rows) if (!stream.closed) write(row);
          if (rows.length > 0) cursor = rows[rows.length - 1]!.seq;
          if (rows.length < PAGE || stream.closed) break;
        }
        if (late.size > 0) {
          const wanted = new Set(late);
          late.clear();
          // A loop, not Math.min(...): a late statement may hold more seqs than a call takes.
          let after = Number.POSITIVE_INFINITY;
          let through = 0;
          for (const seq of wanted) {
            after = Math.min(after, seq - 1);
            through = Math.max(through, seq);
          }
          for (;;) {
            const rows = await eventsAfter(deps.db, organizationId, after, PAGE, through);
            for (const row of rows) if (wanted.has(row.seq) && !stream.closed) write(row, true);
            if (rows.length < PAGE || stream.closed) break;
            after = rows[rows.length - 1]!.seq;
          }
        }
      } while (again && !stream.closed);
    } catch (err) {
      req.log.error({ err }, "listen stream catch-up failed");
    } finally {
      running = false;
    }
  };

  const unsubscribe = deps.hub.subscribe((n) => {
    if (stream.closed) return;
    if (n.kind === "event") {
      if (n.organizationId !== organizationId) return;
      const through = Math.min(n.last, cursor);
      for (let seq = n.first; seq <= through; seq++) if (!sent.has(seq)) late.add(seq);
      void catchUp();
    } else if (n.kind === "resync") void catchUp();
  });
  const userId = authOf(req).userId;
  const stillAllowed = async () => {
    const now = req.reauthenticate ? await req.reauthenticate() : null;
    return now?.userId === userId && now.organizationIds.includes(organizationId);
  };
  const stream = holdStream(req, res, deps.streams, unsubscribe, stillAllowed);
  void catchUp();
}
