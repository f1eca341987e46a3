// The till API client: Node's fetch with the bearer token, JSON in and out, and every error answer
// turned into an ApiResponseError carrying Polar's error name and detail. Plain fetch rather than an
// HTTP library: each command is one short process, and loading less is most of its speed.
import pkg from "../../package.json" with { type: "json" };
import { AbortError, ApiResponseError } from "./errors.ts";

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown, query?: Query, options?: CallOptions): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** Fetches every page of a Polar list endpoint (bounded). */
  all<T>(path: string, query?: Query, maxPages?: number): Promise<T[]>;
}

export type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;

/** `timeoutMs`: for a request the server answers only once its work is done (a clock advance). */
export interface CallOptions {
  timeoutMs?: number;
}

const TIMEOUT_MS = 30_000;
/** GETs are retried on these (a proxy or a restarting server), twice, after 0.3 s then 0.6 s. */
const RETRY_STATUSES = new Set([502, 503, 504]);

export function createApi(server: string, token: string | null): ApiClient {
  const headers: Record<string, string> = {
    "user-agent": `till-cli/${pkg.version}`,
    accept: "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };

  const call = async <T>(
    method: string,
    path: string,
    options: { json?: unknown; query?: Query } & CallOptions = {},
  ): Promise<T> => {
    const url = new URL(`${server}/${path.replace(/^\//, "")}`);
    if (options.query) url.search = toSearchParams(options.query).toString();
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: method.toUpperCase(),
          headers:
            options.json !== undefined
              ? { ...headers, "content-type": "application/json" }
              : headers,
          ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
          signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
        });
      } catch (err) {
        throw toCliError(err, server);
      }
      if (method === "get" && RETRY_STATUSES.has(res.status) && attempt < 2) {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 300 * 2 ** attempt));
        continue;
      }
      const text = await res.text();
      if (!res.ok) throw errorFromAnswer(res, text, server);
      if (res.status === 204 || !text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw notTill(res, text, server);
      }
    }
  };

  return {
    get: (path, query) => call("get", path, query ? { query } : {}),
    post: (path, body, query, options = {}) =>
      call("post", path, { json: body ?? {}, ...(query ? { query } : {}), ...options }),
    patch: (path, body) => call("patch", path, { json: body }),
    delete: (path) => call("delete", path),
    async all<T>(path: string, query: Query = {}, maxPages = 50) {
      const items: T[] = [];
      for (let page = 1; page <= maxPages; page++) {
        const res = await call<{ items: T[]; pagination: { max_page: number } }>("get", path, {
          query: { ...query, page, limit: 100 },
        });
        items.push(...res.items);
        if (page >= res.pagination.max_page) break;
      }
      return items;
    },
  };
}

function errorFromAnswer(res: Response, text: string, server: string): ApiResponseError {
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML page, say): shown as text below.
  }
  if (data && typeof data === "object" && "error" in data) {
    const body = data as { error: unknown; detail?: unknown; error_description?: unknown };
    return new ApiResponseError(
      res.status,
      String(body.error),
      body.detail ?? body.error_description ?? "",
    );
  }
  return new ApiResponseError(res.status, `HTTP ${res.status}`, notTillDetail(res, text, server));
}

/**
 * A success that is not JSON: the URL is some other server (the seller's own app, a dev server
 * answering every path with its page), not till's API.
 */
function notTill(res: Response, text: string, server: string): AbortError {
  return new AbortError(`HTTP ${res.status}: ${notTillDetail(res, text, server)}`, {
    hint: "Set --server or TILL_SERVER to the URL `till dev` (or `till serve`) prints.",
  });
}

/** One line naming what answered instead of till's JSON, with the start of its text. */
function notTillDetail(res: Response, text: string, server: string): string {
  const type = res.headers.get("content-type")?.split(";")[0] || "no content type";
  const start = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  return `${server} answered ${type}, not till's JSON${start ? ` ("${start}")` : ""}; is it the till server?`;
}

function toSearchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return params;
}

function toCliError(err: unknown, server: string): Error {
  const unreachable = networkFailure(err);
  if (unreachable) {
    return new AbortError(`Could not reach till at ${server} (${unreachable}).`, {
      hint: "Is the server running (`till dev`)? Set --server or TILL_SERVER to another URL.",
    });
  }
  return err as Error;
}

/** The reason a request never got an answer (refused, DNS, reset, TLS, timeout), or null. */
export function networkFailure(err: unknown): string | null {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return "timed out";
  if (e?.name === "TypeError" && e.message === "fetch failed")
    return e.cause?.code ?? e.cause?.message ?? "network error";
  return null;
}
