// The till API client: ky with the bearer token, JSON in and out, and every error answer turned
// into an ApiResponseError carrying Polar's error name and detail.
import ky, { HTTPError, type KyInstance } from "ky";
import pkg from "../../package.json" with { type: "json" };
import { AbortError, ApiResponseError } from "./errors.ts";

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown, query?: Query): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** Fetches every page of a Polar list endpoint (bounded). */
  all<T>(path: string, query?: Query, maxPages?: number): Promise<T[]>;
}

export type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;

export function createApi(server: string, token: string | null): ApiClient {
  const client: KyInstance = ky.create({
    prefix: server,
    timeout: 30_000,
    retry: { limit: 2, methods: ["get"], statusCodes: [502, 503, 504] },
    headers: {
      "user-agent": `till-cli/${pkg.version}`,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });

  const call = async <T>(
    method: string,
    path: string,
    options: { json?: unknown; query?: Query } = {},
  ): Promise<T> => {
    try {
      const res = await client(path.replace(/^\//, ""), {
        method,
        ...(options.json !== undefined ? { json: options.json } : {}),
        ...(options.query ? { searchParams: toSearchParams(options.query) } : {}),
      });
      if (res.status === 204) return undefined as T;
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (err) {
      throw await toCliError(err, server);
    }
  };

  return {
    get: (path, query) => call("get", path, query ? { query } : {}),
    post: (path, body, query) =>
      call("post", path, { json: body ?? {}, ...(query ? { query } : {}) }),
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

function toSearchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return params;
}

async function toCliError(err: unknown, server: string): Promise<Error> {
  if (err instanceof HTTPError) {
    // ky has already read the body into err.data (JSON when the server said so, else text).
    const data: unknown = err.data;
    if (data && typeof data === "object" && "error" in data) {
      const body = data as { error: unknown; detail?: unknown; error_description?: unknown };
      return new ApiResponseError(
        err.response.status,
        String(body.error),
        body.detail ?? body.error_description ?? "",
      );
    }
    const text = typeof data === "string" ? data.slice(0, 300) : "";
    return new ApiResponseError(
      err.response.status,
      `HTTP ${err.response.status}`,
      text || err.response.statusText,
    );
  }
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
  // ky wraps fetch's TypeError in its NetworkError; the system's reason is the inner cause.
  if (e?.name === "NetworkError") return networkFailure(e.cause) ?? "network error";
  if (e?.name === "TypeError" && e.message === "fetch failed")
    return e.cause?.code ?? e.cause?.message ?? "network error";
  return null;
}
