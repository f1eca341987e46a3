// The checkout page's calls: the public client endpoints by client secret, and the sandbox card
// tokenizer. Error answers become a message per field (from 422 `loc`) plus a general one.
import type { Checkout } from "./types.ts";

export class CheckoutApiError extends Error {
  readonly status: number;
  readonly name_: string;
  readonly fields: Record<string, string>;

  constructor(status: number, name: string, message: string, fields: Record<string, string>) {
    super(message);
    this.status = status;
    this.name_ = name;
    this.fields = fields;
  }
}

export const LOST_CONNECTION =
  "The connection was lost. Check your internet connection and try again.";

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new CheckoutApiError(0, "NetworkError", LOST_CONNECTION, {});
  }
  const data = (await res.json().catch(() => null)) as { error?: string; detail?: unknown } | null;
  if (res.ok) return data as T;
  const fields: Record<string, string> = {};
  let message = "Something went wrong. Try again.";
  if (Array.isArray(data?.detail)) {
    for (const issue of data.detail as { loc: (string | number)[]; msg: string }[]) {
      const key = issue.loc.filter((p) => p !== "body").join(".");
      fields[key] = issue.msg;
    }
    message = Object.values(fields)[0] ?? message;
  } else if (typeof data?.detail === "string") {
    message = data.detail;
  }
  throw new CheckoutApiError(res.status, data?.error ?? `HTTP ${res.status}`, message, fields);
}

const base = (secret: string) => `/v1/checkouts/client/${encodeURIComponent(secret)}`;

/**
 * Resolves with the first status the session's stream reports that is not `confirmed` (the payment
 * has settled), or with null when the stream is unavailable, fails, or says nothing in time.
 */
export function settledStatus(secret: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    if (typeof EventSource === "undefined") return resolve(null);
    const source = new EventSource(`${base(secret)}/stream`);
    const done = (status: string | null) => {
      clearTimeout(timer);
      source.close();
      resolve(status);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    source.onmessage = (message: MessageEvent<string>) => {
      const status = (JSON.parse(message.data) as { payload?: { status?: string } }).payload
        ?.status;
      if (status && status !== "confirmed") done(status);
    };
    source.onerror = () => done(null);
  });
}

export const checkoutApi = {
  get: (secret: string) => call<Checkout>("GET", base(secret)),
  update: (secret: string, body: object) => call<Checkout>("PATCH", base(secret), body),
  confirm: (secret: string, body: object) =>
    call<Checkout>("POST", `${base(secret)}/confirm`, body),
  cardToken: (card: { number: string; exp_month: number; exp_year: number; cvc: string }) =>
    call<{ id: string }>("POST", "/v1/sandbox/confirmation-tokens", { card }),
};
