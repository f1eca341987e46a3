// What the Discord and GitHub adapters share: one JSON request helper that honours a 429's
// Retry-After for short waits, and the error a failed grant records ({message, type}).
export class GrantFailure extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

export interface ApiResponse {
  status: number;
  body: unknown;
}

/** Longest Retry-After we wait for inside a job; longer ones fail the attempt and the queue retries. */
const MAX_INLINE_WAIT_MS = 5_000;

export async function callApi(
  service: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown },
): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method,
        headers: {
          accept: "application/json",
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new GrantFailure(
        `${service}_unreachable`,
        `${service} API could not be reached: ${(err as Error).message}`,
      );
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    if (res.status === 429) {
      const waitMs = retryAfterMs(res.headers, body);
      if (attempt < 3 && waitMs <= MAX_INLINE_WAIT_MS) {
        await new Promise((r) => setTimeout(r, waitMs));
        continue;
      }
      throw new GrantFailure(
        `${service}_rate_limited`,
        `${service} API rate limit reached; retry after ${Math.ceil(waitMs / 1000)} s.`,
      );
    }
    return { status: res.status, body };
  }
}

function retryAfterMs(headers: Headers, body: unknown): number {
  const header = Number(headers.get("retry-after"));
  if (Number.isFinite(header) && header >= 0) return header * 1000;
  // Discord also says it in the body, in seconds (fractional).
  const fromBody = (body as { retry_after?: unknown } | null)?.retry_after;
  if (typeof fromBody === "number" && fromBody >= 0) return fromBody * 1000;
  return 1000;
}

export function messageOf(body: unknown): string {
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string")
    return body.message;
  return typeof body === "string" && body ? body.slice(0, 200) : "no details";
}
