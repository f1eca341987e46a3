// Forwarding one streamed event to the developer's local URL. The stream's signature only proves
// the server sent the message (it may be read hours later, after a sleep), so each attempt is
// re-signed with the listen secret at the time it is sent: the handler's 5-minute timestamp check
// then always holds. It carries both signatures a delivery carries, so a handler verifying with
// `standardwebhooks` and one using @polar-sh/sdk's validateEvent both accept it. Until the handler
// answers at all (it is still starting, or restarting), the attempt is retried with backoff and
// every failure logged; an event is never dropped.
import { signatureHeader, type SigningKeys } from "../../server/modules/webhooks/signing.ts";

export interface StreamMessage {
  webhook_id: string;
  timestamp: number;
  signature: string;
  body: string;
}

export interface ForwardReport {
  kind: "forward";
  time: string;
  status: number | string;
  method: "POST";
  url: string;
  id: string;
  ms: number;
  attempt: number;
  error?: string;
}

export interface ForwardOptions {
  target: string;
  keys: SigningKeys;
  report: (line: ForwardReport) => void;
  signal: AbortSignal;
  /** First retry delay; doubles up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  now?: () => Date;
}

export async function forward(m: StreamMessage, o: ForwardOptions): Promise<void> {
  const now = o.now ?? (() => new Date());
  for (let attempt = 1; !o.signal.aborted; attempt++) {
    const started = performance.now();
    const seconds = Math.floor(now().getTime() / 1000);
    try {
      const res = await fetch(o.target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": m.webhook_id,
          "webhook-timestamp": String(seconds),
          "webhook-signature": signatureHeader(o.keys, m.webhook_id, seconds, m.body),
          "user-agent": "till-cli",
        },
        body: m.body,
        redirect: "manual",
        signal: AbortSignal.any([o.signal, AbortSignal.timeout(10_000)]),
      });
      await res.body?.cancel();
      o.report(line(o, m, res.status, started, attempt));
      return;
    } catch (err) {
      if (o.signal.aborted) return;
      const e = err as Error & { cause?: { code?: string } };
      const status = e.name === "TimeoutError" ? "timeout" : "error";
      const delay = Math.min(o.maxDelayMs ?? 10_000, (o.baseDelayMs ?? 500) * 2 ** (attempt - 1));
      o.report({
        ...line(o, m, status, started, attempt),
        error: `${e.cause?.code ?? e.message}; retrying in ${delay / 1000} s`,
      });
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        const wake = () => {
          clearTimeout(t);
          resolve();
        };
        o.signal.addEventListener("abort", wake, { once: true });
      });
    }
  }
}

function line(
  o: ForwardOptions,
  m: StreamMessage,
  status: number | string,
  started: number,
  attempt: number,
): ForwardReport {
  return {
    kind: "forward",
    time: new Date().toISOString().slice(11, 19),
    status,
    method: "POST",
    url: o.target,
    id: m.webhook_id,
    ms: Math.round(performance.now() - started),
    attempt,
  };
}
