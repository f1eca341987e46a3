// The API requests of each organization, live, for `till logs tail`: every finished /v1 request by
// an authenticated caller is handed to the streams open at that moment, on any instance of the same
// database. Nothing is stored.
import type { RequestHandler } from "express";
import type { Sql } from "postgres";
import type { Clock } from "../../lib/clock.ts";

export interface RequestLogEntry {
  organization_ids: readonly string[];
  time: string;
  method: string;
  /** Without the query string, which may carry customer data. */
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  token: { kind: "user" | "organization"; id: string | null };
}

/** Every instance's finished requests, while some instance tails their organization. */
export const REQUESTS_CHANNEL = "till_request_log";
/** "<organization_id>" announced every few seconds by an instance with a tail open on it. */
export const TAILS_CHANNEL = "till_request_log_tails";
const ANNOUNCE_MS = 3_000;
/** An organization counts as tailed this long after its last announcement. */
const TAILED_FOR_MS = 10_000;

type Listener = (entry: RequestLogEntry) => void;

/**
 * Tails per organization. On PostgreSQL every instance hears every other: an instance with a tail
 * announces its organization on TAILS_CHANNEL, and while an organization is announced anywhere,
 * each instance NOTIFYs its finished requests for it on REQUESTS_CHANNEL, which every instance
 * hands to its own tails (its own requests included, so each line arrives once). Nothing is sent
 * while nobody tails. On PGlite (one process) requests go straight to the tails.
 */
export class RequestLogHub {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #client: Sql | null;
  readonly #tailed = new Map<string, number>();
  #listening: Promise<void> | null = null;
  #announcer: NodeJS.Timeout | null = null;

  constructor(client: Sql | null = null) {
    this.#client = client;
  }

  /** Starts hearing the other instances (PostgreSQL only); failures are retried at the next tail. */
  listen(): Promise<void> {
    const client = this.#client;
    if (!client) return Promise.resolve();
    this.#listening ??= Promise.all([
      client.listen(REQUESTS_CHANNEL, (payload) =>
        this.#deliver(JSON.parse(payload) as RequestLogEntry),
      ),
      client.listen(TAILS_CHANNEL, (org) => this.#tailed.set(org, Date.now())),
    ]).then(
      () => {},
      (err: unknown) => {
        this.#listening = null;
        throw err;
      },
    );
    return this.#listening;
  }

  subscribe(organizationId: string, listener: Listener): () => void {
    const set = this.#listeners.get(organizationId) ?? new Set<Listener>();
    this.#listeners.set(organizationId, set);
    set.add(listener);
    if (this.#client) {
      void this.#announce();
      this.#announcer ??= setInterval(() => void this.#announce(), ANNOUNCE_MS).unref();
    }
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(organizationId);
      if (this.#listeners.size === 0 && this.#announcer) {
        clearInterval(this.#announcer);
        this.#announcer = null;
      }
    };
  }

  /** Whether a request of these organizations would be shown anywhere. */
  wants(organizationIds: readonly string[]): boolean {
    if (!this.#client) return organizationIds.some((id) => this.#listeners.has(id));
    const since = Date.now() - TAILED_FOR_MS;
    return organizationIds.some(
      (id) => this.#listeners.has(id) || (this.#tailed.get(id) ?? 0) > since,
    );
  }

  /** Whether anything is tailed at all: the request middleware costs nothing otherwise. */
  get active(): boolean {
    if (this.#listeners.size > 0) return true;
    const since = Date.now() - TAILED_FOR_MS;
    for (const [id, at] of this.#tailed) {
      if (at > since) return true;
      this.#tailed.delete(id);
    }
    return false;
  }

  publish(entry: RequestLogEntry): void {
    if (!this.#client) {
      this.#deliver(entry);
      return;
    }
    // Best effort, like the log line itself: a request never fails or waits for its tail.
    this.#client`select pg_notify(${REQUESTS_CHANNEL}, ${JSON.stringify(entry)})`.catch(() => {});
  }

  #deliver(entry: RequestLogEntry): void {
    for (const id of entry.organization_ids)
      for (const listener of this.#listeners.get(id) ?? []) listener(entry);
  }

  async #announce(): Promise<void> {
    const client = this.#client!;
    try {
      await this.listen();
      for (const id of this.#listeners.keys())
        await client`select pg_notify(${TAILS_CHANNEL}, ${id})`;
    } catch {
      // The database is unreachable: tails see nothing until it is back, requests are unaffected.
    }
  }
}

/** Mounted on /v1: reports each finished request once someone is tailing (free otherwise). */
export function recordRequests(hub: RequestLogHub, clock: Clock): RequestHandler {
  return (req, res, next) => {
    if (hub.active) {
      const started = process.hrtime.bigint();
      res.once("finish", () => {
        const auth = req.auth;
        const path = req.originalUrl.split("?")[0] ?? req.originalUrl;
        // The tails' own requests stay out of what they show.
        if (!auth || path.startsWith("/v1/cli/")) return;
        const organizationIds = namedOrganizations(req.query, req.body, auth.organizationIds);
        if (!hub.wants(organizationIds)) return;
        hub.publish({
          organization_ids: organizationIds,
          time: clock.now().toISOString(),
          method: req.method,
          path,
          status: res.statusCode,
          duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
          request_id: req.id,
          token:
            auth.kind === "organization"
              ? { kind: "organization", id: auth.tokenId }
              : { kind: "user", id: auth.userId },
        });
      });
    }
    next();
  };
}

/**
 * Which organizations a request concerns: the ones it names with organization_id (query or body)
 * among the caller's, else all of the caller's (a user token spans several).
 */
function namedOrganizations(
  query: unknown,
  body: unknown,
  callers: readonly string[],
): readonly string[] {
  const pick = (v: unknown): string[] =>
    typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  const named = [
    ...pick((query as { organization_id?: unknown } | undefined)?.organization_id),
    ...(body && typeof body === "object"
      ? pick((body as { organization_id?: unknown }).organization_id)
      : []),
  ].filter((id) => callers.includes(id));
  return named.length > 0 ? named : callers;
}
