// A browser-like client for auth tests: a cookie jar, an Origin header like a same-site page sends,
// better-auth's own client (`better-auth/client`) over that fetch, and the email outbox where the
// links a user would click arrive.
import { sql } from "drizzle-orm";
import { createAuthClient } from "better-auth/client";
import type { Database } from "../../db/client.ts";
import { loadConfig } from "../../server/config.ts";
import { mailLinks } from "../../server/modules/email/links.ts";

export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(suffix: string): string | undefined {
    for (const [k, v] of this.cookies) if (k.endsWith(suffix)) return v;
    return undefined;
  }
}

export interface BrowserInit {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Omit the Origin header (a non-browser client, or a hostile page's simple form). */
  noOrigin?: boolean;
}

/** A user agent with cookies. `call` never follows redirects, so tests see each 302. */
export function browser(base: string) {
  const jar = new CookieJar();
  const fetchWithJar = async (
    input: string | URL | Request,
    init: RequestInit = {},
  ): Promise<Response> => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [k, v] of new Headers(init.headers)) headers.set(k, v);
    if (!headers.has("origin")) headers.set("origin", base);
    if (jar.cookies.size > 0) headers.set("cookie", jar.header());
    const url = input instanceof Request ? input.url : String(input);
    const res = await fetch(url, {
      ...init,
      headers,
      redirect: "manual",
      ...(input instanceof Request && init.body === undefined
        ? { method: input.method, body: (await input.text()) || undefined }
        : {}),
    });
    jar.store(res);
    return res;
  };
  async function call(path: string, init: BrowserInit = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined && !headers["content-type"])
      headers["content-type"] = "application/json";
    const url = path.startsWith("http") ? path : `${base}${path}`;
    const h = new Headers(headers);
    if (!init.noOrigin && !h.has("origin")) h.set("origin", base);
    if (jar.cookies.size > 0 && !h.has("cookie")) h.set("cookie", jar.header());
    const body =
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body);
    const res = await fetch(url, {
      method: init.method ?? (body === undefined ? "GET" : "POST"),
      headers: h,
      body,
      redirect: "manual",
    });
    jar.store(res);
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, body: json as any, text };
  }
  const client = createAuthClient({
    baseURL: base,
    fetchOptions: { customFetchImpl: fetchWithJar as typeof fetch },
  });
  return { jar, call, client, fetch: fetchWithJar };
}

export interface OutboxMail {
  kind: string;
  to: string;
  subject: string;
  text: string;
  link: string | null;
}

/** A test server's AUTH_SECRET unless the test sets one: the default of `till test`. */
const TEST_AUTH_SECRET = loadConfig({ command: "test", env: {} }).authSecret;

/** A mail's link as the mail carried it: the outbox keeps it sealed under the server's secret. */
export function openMailLink(stored: string, authSecret = TEST_AUTH_SECRET): string {
  return mailLinks(authSecret).open({ text: "", link: stored }).link!;
}

/** Mails sent to `to`, oldest first, links opened; optionally only one kind. */
export async function mailsTo(
  database: Database,
  to: string,
  kind?: string,
): Promise<OutboxMail[]> {
  const rows = await database.rows<OutboxMail>(
    sql`select kind, "to", subject, text, link from email_outbox where "to" = ${to} order by created_at, id`,
  );
  const links = mailLinks(TEST_AUTH_SECRET);
  const mails = rows.map((r) => ({ ...r, ...links.open(r) }));
  return kind ? mails.filter((r) => r.kind === kind) : mails;
}

export async function lastLink(database: Database, to: string, kind: string): Promise<string> {
  const mails = await mailsTo(database, to, kind);
  const link = mails.at(-1)?.link;
  if (!link) throw new Error(`no ${kind} mail to ${to}`);
  return link;
}

let counter = 0;
export function uniqueEmail(prefix = "user"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}@example.com`;
}
