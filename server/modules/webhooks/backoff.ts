// How long a delivery waits: the retry schedule of a failed event, and the circuit breaker that
// slows down an endpoint while it keeps failing.

export function retryDelayMs(baseMs: number, failedAttempt: number): number {
  // ~base, 2×base, 4×base …: with the default 4 s the ninth wait is ~17 min; ±20 % jitter spreads
  // the retries of many events that failed together.
  return Math.round(baseMs * 2 ** (failedAttempt - 1) * (0.8 + Math.random() * 0.4));
}

const PAUSE_FIRST_MS = 50;
const PAUSE_MAX_MS = 1_000;
const ENDPOINTS_KEPT = 10_000;

/** Recent trouble per endpoint: each failure in a row doubles its pause, a success clears it. */
export class CircuitBreaker {
  readonly #health = new Map<string, { failures: number; pausedUntil: number }>();

  /** Until when (ms) the endpoint waits; 0 when it does not. */
  pausedUntil(endpointId: string): number {
    return this.#health.get(endpointId)?.pausedUntil ?? 0;
  }

  /** Endpoints paused at `now`, at most `max` of them. */
  paused(now: number, max: number): string[] {
    const ids: string[] = [];
    for (const [id, h] of this.#health) if (h.pausedUntil > now && ids.length < max) ids.push(id);
    return ids;
  }

  /** Records an attempt's outcome; after a failure, answers until when the endpoint is paused. */
  note(endpointId: string, ok: boolean): number {
    if (ok) {
      this.#health.delete(endpointId);
      return 0;
    }
    const h = this.#health.get(endpointId) ?? { failures: 0, pausedUntil: 0 };
    h.failures++;
    h.pausedUntil = Date.now() + Math.min(PAUSE_MAX_MS, PAUSE_FIRST_MS * 2 ** (h.failures - 1));
    this.#health.delete(endpointId);
    this.#health.set(endpointId, h);
    if (this.#health.size > ENDPOINTS_KEPT) this.#health.delete(this.#health.keys().next().value!);
    return h.pausedUntil;
  }
}
