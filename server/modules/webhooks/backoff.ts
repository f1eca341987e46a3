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
const LEFT_OUT_MAX = 1_000;
const PROBE_INTERVAL_MS = 250;
const PROBE_BATCH = 16;

/** Recent trouble per endpoint: each failure in a row doubles its pause, a success clears it. */
export class CircuitBreaker {
  readonly #health = new Map<string, { failures: number; pausedUntil: number }>();
  #nextProbeAt = 0;

  /** Until when (ms) the endpoint waits; 0 when it does not. */
  pausedUntil(endpointId: string): number {
    return this.#health.get(endpointId)?.pausedUntil ?? 0;
  }

  /** Whether the endpoint's last attempt failed (it gets one request at a time until one succeeds). */
  failing(endpointId: string): boolean {
    return this.#health.has(endpointId);
  }

  /**
   * The endpoints a fetch of jobs leaves out, and how many jobs it may take. Paused endpoints are
   * always left out. Failing ones are left out too, except from a small probe fetch at most every
   * PROBE_INTERVAL_MS: their old events come first in priority order and would otherwise fill every
   * fetch, starving the healthy endpoints.
   */
  leftOut(now: number): { ids: string[]; batchSize: number } {
    if (this.#health.size === 0) return { ids: [], batchSize: Infinity };
    const probe = now >= this.#nextProbeAt;
    if (probe) this.#nextProbeAt = now + PROBE_INTERVAL_MS;
    const ids: string[] = [];
    for (const [id, h] of this.#health) {
      if (ids.length >= LEFT_OUT_MAX) break;
      if (!probe || h.pausedUntil > now) ids.push(id);
    }
    return { ids, batchSize: probe ? PROBE_BATCH : Infinity };
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
