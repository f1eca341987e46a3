// The request data of `till api`: key=value fields (dots nest, numbers and booleans keep their
// type), or a whole JSON body from a file, stdin or the argument itself.
import { readFileSync } from "node:fs";
import type { ApiClient, CallOptions, Query } from "../lib/api.ts";
import { AbortError, ApiResponseError, EXIT } from "../lib/errors.ts";
import { setPath } from "../lib/fixtures.ts";

export function buildRequestData(items: string[]): Record<string, unknown> {
  let body: Record<string, unknown> = {};
  // A field given twice would keep only its last value unseen: a body has one of each.
  const given = new Set<string>();
  for (const item of items) {
    if (item.startsWith("@") || item.startsWith("{")) {
      const source = item.startsWith("@") ? item.slice(1) : null;
      const text = source === null ? item : readFileSync(source === "-" ? 0 : source, "utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw new AbortError(`${source ?? "--data"} is not valid JSON: ${(err as Error).message}`, {
          exitCode: EXIT.usage,
        });
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
        throw new AbortError(`${source ?? "--data"} must hold a JSON object.`, {
          exitCode: EXIT.usage,
        });
      body = { ...body, ...(parsed as Record<string, unknown>) };
      continue;
    }
    const eq = item.indexOf("=");
    if (eq <= 0)
      throw new AbortError(`-d expects key=value, @file.json or a JSON object, got "${item}".`, {
        exitCode: EXIT.usage,
      });
    const raw = item.slice(eq + 1);
    const value: unknown =
      raw === "true" || raw === "false"
        ? raw === "true"
        : raw === "null"
          ? null
          : /^-?\d+(\.\d+)?$/.test(raw)
            ? Number(raw)
            : raw;
    const key = item.slice(0, eq);
    if (given.has(key))
      throw new AbortError(`-d ${key} is given twice; a request body has one value for it.`, {
        hint: "For a list, give its items by index: -d key.0=a -d key.1=b.",
        exitCode: EXIT.usage,
      });
    given.add(key);
    setPath(body, key, value);
  }
  return body;
}

/**
 * A GET's query from the same -d items: a key given more than once is sent once per value
 * (`-d product_id=a -d product_id=b`, as the list endpoints filter by several), values as typed.
 */
export function buildQuery(items: string[]): Query {
  const query: Record<string, string | (string | number)[]> = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (item.startsWith("@") || item.startsWith("{") || eq <= 0) {
      for (const [key, value] of Object.entries(buildRequestData([item])))
        query[key] = Array.isArray(value) ? value.map(String) : String(value);
      continue;
    }
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    const had = query[key];
    query[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return query;
}

/** Whether an error answer says the request lacks organization_id (a user token with several). */
function missingOrganization(err: unknown): boolean {
  return (
    err instanceof ApiResponseError &&
    err.status === 422 &&
    Array.isArray(err.detail) &&
    err.detail.some(
      (d: { loc?: unknown[]; type?: string }) =>
        d.type === "missing" && d.loc?.[d.loc.length - 1] === "organization_id",
    )
  );
}

/**
 * The client of `till api` and `till fixtures run`: a GET or POST names the organization when
 * --org was given, else only once the server answers that organization_id is missing (a user token
 * with several organizations), and then the profile's; a request that names one keeps it.
 */
export function organizationFilling(
  api: ApiClient,
  organization: () => Promise<string | undefined>,
  always: boolean,
): ApiClient {
  let resolved: Promise<string | undefined> | null = null;
  const org = () => (resolved ??= organization());
  const named = (data: unknown) =>
    data !== null && typeof data === "object" && "organization_id" in data;
  async function send<T>(
    data: Record<string, unknown> | undefined,
    call: (data: Record<string, unknown> | undefined) => Promise<T>,
  ): Promise<T> {
    const withOrg = async () => {
      const id = await org();
      return id && !named(data) ? { ...data, organization_id: id } : data;
    };
    if (always) return call(await withOrg());
    try {
      return await call(data);
    } catch (err) {
      if (!missingOrganization(err) || named(data)) throw err;
      const filled = await withOrg();
      if (filled === data) throw err;
      return call(filled);
    }
  }
  return {
    ...api,
    get: <T>(path: string, query?: Query) =>
      send(query, (q) => api.get<T>(path, q as Query | undefined)),
    post: <T>(path: string, body?: unknown, query?: Query, options?: CallOptions) =>
      body === undefined || (typeof body === "object" && body !== null && !Array.isArray(body))
        ? send(body as Record<string, unknown> | undefined, (b) =>
            api.post<T>(path, b, query, options),
          )
        : api.post<T>(path, body, query, options),
  };
}
