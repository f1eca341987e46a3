// The one source of time. Services ask the clock, never Date.now(), so tests move time forward to
// reach renewals, expiries and trials without sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class TestClock implements Clock {
  #offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  set(date: Date): void {
    this.#offsetMs = date.getTime() - Date.now();
  }
}
