// The API requests of each organization, live, for `till logs tail`: every finished /v1 request by
// an authenticated caller is handed to the streams open at that moment. Nothing is stored, and only
// this process's requests are seen (with several instances, a tail sees the one it is connected to).
import type { RequestHandler } from "express";
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

export class RequestLogHub {
  readonly #listeners = new Set<(entry: RequestLogEntry) => void>();

  subscribe(listener: (entry: RequestLogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(entry: RequestLogEntry): void {
    for (const listener of this.#listeners) listener(entry);
  }

  get size(): number {
    return this.#listeners.size;
  }
}

/** Mounted on /v1: reports each finished request once someone is tailing (free otherwise). */
export function recordRequests(hub: RequestLogHub, clock: Clock): RequestHandler {
  return (req, res, next) => {
    if (hub.size > 0) {
      const started = process.hrtime.bigint();
      res.once("finish", () => {
        const auth = req.auth;
        const path = req.originalUrl.split("?")[0] ?? req.originalUrl;
        // The tails' own requests stay out of what they show.
        if (!auth || path.startsWith("/v1/cli/")) return;
        hub.publish({
          organization_ids: namedOrganizations(req.query, req.body, auth.organizationIds),
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
