// The few calls the better-auth plugin makes to a till server, over plain fetch with the seller's
// organization access token (or a customer session token for the portal lists). Answers are till's
// JSON as is (Polar's wire shapes, snake_case); an error answer becomes a TillApiError carrying
// till's message, so the seller's endpoint can pass it on to the browser.
export class TillApiError extends Error {
  readonly status: number;
  readonly error: string;

  constructor(status: number, error: string, message: string) {
    super(message);
    this.name = "TillApiError";
    this.status = status;
    this.error = error;
  }
}

export interface TillApiOptions {
  /** The till server's base URL, e.g. https://billing.example.com */
  serverUrl: string;
  /** An organization access token (till_oat_…) with the scopes the plugin's features use. */
  accessToken: string;
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;
export interface Page<T = Json> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

function messageOf(status: number, body: unknown): { error: string; message: string } {
  const b = (body ?? {}) as { error?: unknown; detail?: unknown };
  const error = typeof b.error === "string" ? b.error : `HTTP ${status}`;
  if (typeof b.detail === "string") return { error, message: b.detail };
  if (Array.isArray(b.detail) && b.detail.length > 0) {
    const first = b.detail[0] as { loc?: unknown[]; msg?: string };
    const field = Array.isArray(first.loc)
      ? first.loc.filter((p) => p !== "body" && p !== "query").join(".")
      : "";
    return {
      error,
      message: field ? `${field}: ${first.msg ?? "invalid"}` : (first.msg ?? "Invalid request"),
    };
  }
  return { error, message: `till answered HTTP ${status}` };
}

export function createTillApi(options: TillApiOptions) {
  const base = options.serverUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;

  async function call<T>(
    method: string,
    path: string,
    init: {
      body?: unknown;
      token?: string;
      query?: Record<string, string | number | boolean | undefined>;
    } = {},
  ): Promise<T> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const res = await doFetch(url, {
      method,
      headers: {
        authorization: `Bearer ${init.token ?? options.accessToken}`,
        accept: "application/json",
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await res.text();
    const body: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const { error, message } = messageOf(res.status, body);
      throw new TillApiError(res.status, error, message);
    }
    return body as T;
  }
  const ext = (externalId: string) => `/v1/customers/external/${encodeURIComponent(externalId)}`;
  const paging = (q: { page?: number | undefined; limit?: number | undefined } = {}) => ({
    page: q.page ?? 1,
    limit: q.limit ?? 10,
  });

  return {
    customers: {
      getExternal: (externalId: string) => call<Json>("GET", ext(externalId)),
      listByEmail: (email: string) =>
        call<Page>("GET", "/v1/customers/", { query: { email, page: 1, limit: 1 } }),
      create: (body: Json) => call<Json>("POST", "/v1/customers/", { body }),
      update: (id: string, body: Json) =>
        call<Json>("PATCH", `/v1/customers/${encodeURIComponent(id)}`, { body }),
      updateExternal: (externalId: string, body: Json) =>
        call<Json>("PATCH", ext(externalId), { body }),
      deleteExternal: (externalId: string) => call<null>("DELETE", ext(externalId)),
      stateExternal: (externalId: string) => call<Json>("GET", `${ext(externalId)}/state`),
    },
    checkouts: {
      create: (body: Json) => call<Json & { url: string }>("POST", "/v1/checkouts/", { body }),
    },
    customerSessions: {
      create: (body: { external_customer_id: string; return_url?: string | undefined }) =>
        call<Json & { token: string; customer_portal_url: string }>(
          "POST",
          "/v1/customer-sessions/",
          { body },
        ),
    },
    subscriptions: {
      list: (q: {
        page?: number;
        limit?: number;
        active?: boolean | undefined;
        metadata?: Record<string, string>;
      }) => {
        const query: Record<string, string | number | boolean | undefined> = {
          ...paging(q),
          active: q.active,
        };
        for (const [k, v] of Object.entries(q.metadata ?? {})) query[`metadata[${k}]`] = v;
        return call<Page>("GET", "/v1/subscriptions/", { query });
      },
    },
    portal: {
      subscriptions: (
        token: string,
        q: { page?: number | undefined; limit?: number | undefined; active?: boolean | undefined },
      ) =>
        call<Page>("GET", "/v1/customer-portal/subscriptions/", {
          token,
          query: { ...paging(q), active: q.active },
        }),
      orders: (
        token: string,
        q: {
          page?: number | undefined;
          limit?: number | undefined;
          productBillingType?: string | undefined;
        },
      ) =>
        call<Page>("GET", "/v1/customer-portal/orders/", {
          token,
          query: { ...paging(q), product_billing_type: q.productBillingType },
        }),
      benefitGrants: (
        token: string,
        q: { page?: number | undefined; limit?: number | undefined },
      ) => call<Page>("GET", "/v1/customer-portal/benefit-grants/", { token, query: paging(q) }),
      meters: (token: string, q: { page?: number | undefined; limit?: number | undefined }) =>
        call<Page>("GET", "/v1/customer-portal/meters/", { token, query: paging(q) }),
    },
    events: {
      ingest: (events: Json[]) =>
        call<{ inserted: number; duplicates: number }>("POST", "/v1/events/ingest", {
          body: { events },
        }),
    },
  };
}
export type TillApi = ReturnType<typeof createTillApi>;
