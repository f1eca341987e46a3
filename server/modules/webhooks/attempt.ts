// One HTTP attempt: POST the exact signed bytes over an undici connection kept per endpoint, with a
// hard timeout; redirects are not followed (they count as failures); any 2xx is success; the first
// 2 KB of the answer is kept. In production the connection's DNS lookup goes through the URL policy,
// so the socket only ever connects to an address that was checked when it was resolved.
import net from "node:net";
import { Client } from "undici";
import { checkedLookup, isBlockedAddress, type Mode, type Resolver } from "./url-policy.ts";

const RESPONSE_LIMIT = 2048;
const MAX_CLIENTS = 2_000;

export interface AttemptResult {
  succeeded: boolean;
  httpCode: number | null;
  response: string | null;
  durationMs: number;
}

export interface SenderOptions {
  mode: Mode;
  timeoutMs: number;
  resolver: Resolver;
  /** Requests written ahead on an endpoint's connection; 1 waits for each answer before the next. */
  pipelining?: number;
}

export class Sender {
  readonly #options: SenderOptions;
  // One connection per endpoint (and URL origin): requests for an endpoint leave in the order they
  // are issued, and one slow endpoint cannot hold the sockets of another.
  readonly #clients = new Map<string, Client>();

  constructor(options: SenderOptions) {
    this.#options = options;
  }

  #client(key: string, url: URL): Client {
    let client = this.#clients.get(key);
    if (client && !client.destroyed && !client.closed) return client;
    if (this.#clients.size >= MAX_CLIENTS) {
      const [oldestKey, oldest] = this.#clients.entries().next().value!;
      this.#clients.delete(oldestKey);
      void oldest.close().catch(() => {});
    }
    client = new Client(url.origin, {
      pipelining: this.#options.pipelining ?? 1,
      keepAliveTimeout: 30_000,
      connectTimeout: this.#options.timeoutMs,
      headersTimeout: this.#options.timeoutMs,
      bodyTimeout: this.#options.timeoutMs,
      ...(this.#options.mode === "production"
        ? { connect: { lookup: checkedLookup(this.#options.resolver) } }
        : {}),
    });
    this.#clients.set(key, client);
    return client;
  }

  async send(
    endpointId: string,
    rawUrl: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const done = (
      httpCode: number | null,
      response: string | null,
      succeeded = false,
    ): AttemptResult => ({
      succeeded,
      httpCode,
      response,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return done(null, "Invalid URL");
    }
    if (this.#options.mode === "production") {
      // A literal IP never goes through lookup, so it is checked here.
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (url.protocol !== "https:")
        return done(null, "Blocked: webhook URLs must use HTTPS in production");
      if (net.isIP(host) && isBlockedAddress(host))
        return done(null, `Blocked: ${host} is a private or reserved address`);
    }
    const client = this.#client(`${endpointId} ${url.origin}`, url);
    try {
      const res = await client.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "user-agent": "till-webhooks/1",
        },
        body,
        // Webhooks are idempotent by webhook-id, which lets a connection carry the next one early.
        idempotent: true,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      const response = await readPrefix(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return done(res.statusCode, response, ok);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const reason =
        e.name === "TimeoutError" || e.name === "AbortError"
          ? `Timed out after ${this.#options.timeoutMs} ms`
          : `${e.code ?? e.name}: ${e.message}`;
      return done(null, reason.slice(0, RESPONSE_LIMIT));
    }
  }

  async close(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  }
}

/** Reads at most RESPONSE_LIMIT bytes of a body and drops the rest without buffering it. */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < RESPONSE_LIMIT) {
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_LIMIT).toString("utf8");
}
