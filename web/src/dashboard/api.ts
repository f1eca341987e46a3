// The /v1 API from the browser: the session cookie authenticates (credentials: "include"), errors
// become ApiError with Polar's detail turned into sentences (errors.ts), and useApi() loads a
// resource with loading/error state and a reload().
import { useCallback, useEffect, useState } from "react";
import { type FieldProblem, problemsOf } from "./errors.ts";

export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export class ApiError extends Error {
  readonly status: number;
  /** A 422's problems by field path, each already a sentence (see errors.ts). */
  readonly fields: FieldProblem[];
  constructor(status: number, message: string, fields: FieldProblem[] = []) {
    super(message);
    this.status = status;
    this.fields = fields;
  }
  /** The endpoint does not exist on this server (a feature not built or not enabled here). */
  get unavailable(): boolean {
    return this.status === 404;
  }
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "include",
    headers: {
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return undefined as T;
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const { message, fields } = problemsOf(res.status, data);
    throw new ApiError(res.status, message, fields);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body: unknown = {}) => request<T>("POST", path, body),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  del: (path: string) => request<void>("DELETE", path),
};

/** "/v1/products/" + {organization_id, limit: 100} → "/v1/products/?organization_id=…&limit=100". */
export function withQuery(
  path: string,
  query: Record<string, string | number | boolean | null | undefined>,
): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/** GETs `path` (skipped while null) and keeps the last answer; reload() fetches it again. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new tick (reload()) fetches again
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    api.get<T>(path).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (e: unknown) =>
        live &&
        setState({
          data: null,
          error: e instanceof ApiError ? e : new ApiError(0, String(e)),
          loading: false,
        }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}
