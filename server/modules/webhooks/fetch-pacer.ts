// When the delivery worker asks pg-boss for jobs. A fetch that comes back empty costs a statement
// for nothing, which a busy worker (on embedded PGlite above all, where every statement takes this
// thread's time) cannot afford; so a fetch is made when jobs were announced, when the last one
// suggested that more are waiting, and otherwise only on the idle poll (retries and handed-back
// jobs come due without an announcement).
export const IDLE_POLL_MS = 500;
// After an empty answer that left full lanes out, new jobs are likely theirs, and such a fetch is the
// costly kind (it reads past their backlog): the next one waits this long, whatever asks for it.
const EMPTY_FETCH_PAUSE_MS = 50;

export class FetchPacer {
  #last = { at: 0, empty: false, leftOut: false };
  #announced = false;
  #more = true;

  /** New jobs were committed. */
  announce(): void {
    this.#announced = true;
  }

  /** 0 when a fetch is worth a statement now, else how long to wait (unless woken) before asking again. */
  wait(now: number, roomShort: boolean): number {
    if (roomShort) {
      this.#more = true;
      return IDLE_POLL_MS;
    }
    const since = now - this.#last.at;
    if (since >= IDLE_POLL_MS) return 0;
    if (this.#announced && !(this.#last.empty && this.#last.leftOut)) return 0;
    if (!this.#more && !this.#announced) return IDLE_POLL_MS - since;
    return this.#last.empty ? Math.max(0, EMPTY_FETCH_PAUSE_MS - since) : 0;
  }

  /** Called as a fetch starts: what is announced from now on is news to the next one. */
  started(): void {
    this.#announced = false;
  }

  /** What a fetch of up to `batchSize` jobs, leaving out `leftOut` lanes, brought back. */
  fetched(now: number, got: number, batchSize: number, leftOut: number): void {
    this.#last = { at: now, empty: got === 0, leftOut: leftOut > 0 };
    this.#more = got === batchSize || leftOut > 0;
  }
}
