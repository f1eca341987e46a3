// The delivery worker. It pulls delivery jobs from pg-boss, keeps one lane per endpoint (events of
// an endpoint leave in outbox order, at most `pipelining` at a time), runs up to `concurrency`
// requests across lanes, and records each attempt together with the job's completion (and the next
// attempt's job, if any) in one transaction, so an attempt is recorded exactly once.
//
// Ordering: a first attempt waits while an older event of the same endpoint, held by no lane here,
// is still waiting for its own first attempt (another worker has it, or its job is not due yet); the
// wait is bounded by fifoWaitMs from the event's creation, so a stuck event cannot block its endpoint.
// Fairness: a lane holding laneCap events is left out of the next fetch (pg-boss groups); a failing
// endpoint is left out of all but small probe fetches, sends one request at a time after a pause, and
// failing endpoints together get at most half the requests in flight (backoff.ts): a slow or dead
// endpoint cannot take the worker's capacity (its database writes and requests) from healthy ones.
import type { Job, PgBoss } from "pg-boss";
import type { Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Mailer } from "../email/mailer.ts";
import * as repo from "./delivery-repository.ts";
import type { DeliveryTarget } from "./delivery-repository.ts";
import { AttemptRecorder, attemptOutcome, type Outcome } from "./recorder.ts";
import type { Sender } from "./attempt.ts";
import { CircuitBreaker } from "./backoff.ts";
import { Claims } from "./claims.ts";
import { FetchPacer, IDLE_POLL_MS } from "./fetch-pacer.ts";
import { DELIVER_JOB, priorityOf, type DeliverJobData } from "./job-names.ts";
import type { NotificationHub } from "./notifications.ts";
import { signedHeaders, signingKeys } from "./signing.ts";

const FIFO_RECHECK_MS = 100;
const FETCH_BATCH = 200;

export interface DelivererDeps {
  db: Db;
  boss: PgBoss;
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
  sender: Sender;
  mailer: Mailer;
  hub: NotificationHub;
  /** Embedded PGlite: this process is the only one on the database. */
  embedded?: boolean;
}

interface Item {
  job: Job<DeliverJobData>;
  target: DeliveryTarget;
  /** Until when (ms) this first attempt waits for older events of its endpoint; 0 when it does not. */
  gatedUntil: number;
}

interface Lane {
  queue: Item[];
  active: number;
  /** Events of this endpoint below this seq are known to have no older event waiting elsewhere. */
  clearBelow: number;
  /** The head waits for an older event this worker does not hold (yet). */
  blocked: boolean;
}

export class Deliverer {
  readonly #d: DelivererDeps;
  readonly #lanes = new Map<string, Lane>();
  /** Events this worker holds (queued, in flight or awaiting their record), with their job. */
  readonly #held = new Map<string, Job<DeliverJobData>>();
  readonly #breaker = new CircuitBreaker();
  readonly #toVerify = new Set<string>();
  #verifying = false;
  readonly #maxHeld: number;
  readonly #laneCap: number;
  readonly #pipelining: number;
  #inflight = 0;
  /** Of those, requests to endpoints that were failing when they left. */
  #failingInflight = 0;
  #stopped = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #unsubscribe: (() => void) | null = null;
  readonly #pacer = new FetchPacer();
  readonly #claims: Claims;
  readonly #recorder: AttemptRecorder;

  constructor(deps: DelivererDeps, options: { pipelining?: number } = {}) {
    this.#d = deps;
    this.#pipelining = options.pipelining ?? deps.config.webhooks.pipelining;
    this.#laneCap = Math.max(32, this.#pipelining * 8);
    this.#maxHeld = Math.max(256, deps.config.webhooks.concurrency * 32);
    this.#claims = new Claims(deps);
    this.#recorder = new AttemptRecorder(deps, {
      stopped: () => this.#stopped,
      recorded: (batch) => {
        for (const o of batch)
          if (this.#held.get(o.job.data.id) === o.job) this.#held.delete(o.job.data.id);
      },
      kick: () => this.kick(),
    });
  }

  start(): void {
    this.#unsubscribe = this.#d.hub.subscribe((n) => {
      if (n.kind === "jobs" || n.kind === "resync") this.jobsCreated();
    });
    this.#loop = this.#run();
  }

  kick(): void {
    this.#wake?.();
  }

  /** New jobs were committed: the next fetch goes ahead even right after an empty one. */
  jobsCreated(): void {
    this.#pacer.announce();
    this.kick();
  }

  async #run(): Promise<void> {
    if (this.#d.embedded)
      await this.#claims
        .recoverAll()
        .catch((err: unknown) =>
          this.#d.log.error({ err }, "handing back orphaned delivery jobs failed"),
        );
    while (!this.#stopped) {
      let wait = IDLE_POLL_MS;
      try {
        await this.#claims.tend(
          [...this.#held.values()].map((j) => ({ id: j.id, retryCount: j.retryCount })),
        );
        this.#unjam();
        const roomShort =
          this.#maxHeld - this.#held.size < Math.min(FETCH_BATCH, this.#maxHeld / 4) &&
          this.#held.size > 0;
        wait = this.#pacer.wait(Date.now(), roomShort);
        if (wait === 0) {
          const jobs = await this.#fetch();
          if (jobs.length > 0) {
            await this.#accept(jobs);
            continue;
          }
          wait = IDLE_POLL_MS;
        }
      } catch (err) {
        if (this.#stopped) return;
        this.#d.log.error({ err }, "webhook delivery loop failed");
      }
      await this.#sleep(wait);
    }
  }

  async #fetch(): Promise<Job<DeliverJobData>[]> {
    const now = Date.now();
    const batchSize = Math.min(this.#maxHeld - this.#held.size, FETCH_BATCH);
    const ignored = new Set(
      [...this.#lanes]
        .filter(
          ([id, l]) =>
            !l.blocked &&
            l.queue.length + l.active >= (this.#breaker.failing(id) ? 1 : this.#laneCap),
        )
        .map(([id]) => id),
    );
    const leftOut = this.#breaker.leftOut(now);
    for (const id of leftOut.ids) ignored.add(id);
    const size = Math.min(batchSize, leftOut.batchSize);
    this.#pacer.started();
    const jobs = await this.#d.boss.fetch<DeliverJobData>(DELIVER_JOB, {
      batchSize: size,
      ...(ignored.size ? { ignoreGroups: [...ignored] } : {}),
    });
    this.#pacer.fetched(Date.now(), jobs.length, size, ignored.size);
    return jobs;
  }

  /** Waits until kicked, or for `ms`. */
  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
  }

  async #accept(jobs: Job<DeliverJobData>[]): Promise<void> {
    const { config, clock } = this.#d;
    const targets = new Map(
      (
        await repo.loadTargets(
          this.#d.db,
          jobs.map((j) => j.data.id),
        )
      ).map((t) => [t.event.id, t]),
    );
    const now = clock.now().getTime();
    for (const job of jobs) {
      const target = targets.get(job.data.id);
      const event = target?.event;
      const mine = this.#held.get(job.data.id);
      if (mine?.id === job.id) {
        // Held here, but its claim lapsed (it expired) and this fetch claimed it again: it stays where
        // it is, under the new claim, rather than being sent a second time.
        mine.retryCount = job.retryCount;
      } else if (!target || !event) {
        this.#settle({ job });
      } else if (job.data.redeliver) {
        if (event.payload === null) this.#settle({ job });
        else this.#enqueue({ job, target, gatedUntil: 0 });
      } else if (
        event.status !== "pending" ||
        job.data.attempt <= event.attempts ||
        event.payload === null
      ) {
        this.#settle({ job }); // already done, or a stale duplicate of an attempt that was recorded
      } else if (!target.endpoint.enabled) {
        this.#settle({ job, skip: event.id });
      } else {
        // Only a first attempt waits for older events, and only for a bounded time.
        const gatedUntil =
          job.data.attempt === 1
            ? event.createdAt.getTime() + config.webhooks.fifoWaitMs - now + Date.now()
            : 0;
        this.#enqueue({ job, target, gatedUntil });
      }
    }
    this.#pump();
  }

  #enqueue(item: Item): void {
    const id = item.target.endpoint.id;
    const pausedUntil = this.#breaker.pausedUntil(id);
    if (pausedUntil > Date.now()) {
      this.#release(item, pausedUntil);
      return;
    }
    let lane = this.#lanes.get(id);
    if (!lane) {
      lane = { queue: [], active: 0, clearBelow: 0, blocked: false };
      this.#lanes.set(id, lane);
    }
    this.#held.set(item.target.event.id, item.job);
    // Keep the lane in outbox order even when a later fetch brings an older event.
    let at = lane.queue.length;
    while (at > 0 && lane.queue[at - 1]!.target.event.seq > item.target.event.seq) at--;
    lane.queue.splice(at, 0, item);
  }

  /** Whether the lane's head may go: not a gated first attempt, or no older event is waiting elsewhere. */
  #headMayGo(lane: Lane, now: number): boolean {
    const head = lane.queue[0]!;
    return head.gatedUntil <= now || head.target.event.seq < lane.clearBelow;
  }

  #pump(): void {
    const now = Date.now();
    const { concurrency } = this.#d.config.webhooks;
    for (const [id, lane] of this.#lanes) {
      const pausedUntil = this.#breaker.pausedUntil(id);
      if (pausedUntil > now) continue;
      const failing = this.#breaker.failing(id);
      const laneLimit = failing ? 1 : this.#pipelining;
      while (lane.active < laneLimit && lane.queue.length > 0 && this.#inflight < concurrency) {
        if (failing && this.#failingInflight >= Math.max(1, Math.floor(concurrency / 2))) break;
        if (!this.#headMayGo(lane, now)) {
          this.#toVerify.add(id);
          break;
        }
        const item = lane.queue.shift()!;
        lane.active++;
        this.#inflight++;
        if (failing) this.#failingInflight++;
        void this.#attempt(item).finally(() => {
          lane.active--;
          this.#inflight--;
          if (failing) this.#failingInflight--;
          if (lane.active === 0 && lane.queue.length === 0) this.#lanes.delete(id);
          this.#pump();
        });
      }
      if (this.#inflight >= concurrency) break;
    }

    if (this.#toVerify.size > 0) void this.#verify();
    // Rotate so the lanes that were not served this time come first next time.
    if (this.#lanes.size > 1) {
      const [firstId, first] = this.#lanes.entries().next().value!;
      this.#lanes.delete(firstId);
      this.#lanes.set(firstId, first);
    }
  }

  async #attempt({ job, target }: Item): Promise<void> {
    const { config, clock } = this.#d;
    const { event, endpoint } = target;
    const body = event.payload!;
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const headers = signedHeaders(signingKeys(endpoint.secret), event.id, timestamp, body);
    const result = await this.#d.sender.send(endpoint.id, endpoint.url, headers, body);
    this.#noteHealth(endpoint.id, result.succeeded);
    this.#settle(attemptOutcome(job, target, result, config, clock.now()));
  }

  /**
   * One query for every lane whose head waits: the lowest seq among the endpoint's events still
   * waiting for a first attempt that this worker does not hold. Everything below it may go; a lane
   * still blocked is checked again shortly (and keeps fetching, so the missing event can come to it).
   */
  async #verify(): Promise<void> {
    if (this.#verifying) return;
    this.#verifying = true;
    try {
      while (this.#toVerify.size > 0 && !this.#stopped) {
        const ids = [...this.#toVerify];
        this.#toVerify.clear();
        const oldest = await repo.oldestUnattempted(this.#d.db, ids, [...this.#held.keys()]);
        let blocked = false;
        for (const id of ids) {
          const lane = this.#lanes.get(id);
          if (!lane || lane.queue.length === 0) continue;
          const blocker = oldest.get(id);
          lane.clearBelow = blocker ?? lane.queue[lane.queue.length - 1]!.target.event.seq + 1;
          lane.blocked = blocker !== undefined && blocker < lane.queue[0]!.target.event.seq;
          blocked ||= lane.blocked;
        }
        this.#pump();
        if (blocked && this.#toVerify.size > 0)
          await new Promise((r) => setTimeout(r, FIFO_RECHECK_MS));
      }
    } catch (err) {
      this.#d.log.error({ err }, "checking webhook order failed");
    } finally {
      this.#verifying = false;
    }
    this.kick();
  }

  /**
   * When every slot is held and lanes wait for events this worker does not hold, nothing could
   * arrive to unblock them: hand the tails of the waiting lanes back to the queue to make room.
   */
  #unjam(): void {
    if (this.#held.size < this.#maxHeld) return;
    for (const lane of this.#lanes.values()) {
      if (!lane.blocked || lane.queue.length <= 8) continue;
      for (const item of lane.queue.splice(8)) this.#release(item, Date.now() + FIFO_RECHECK_MS);
    }
  }

  /** Hands an event not yet started back to the queue, due at `at`. */
  #release({ job, target }: Pick<Item, "job" | "target">, at: number): void {
    this.#settle({
      job,
      next: {
        data: job.data,
        group: { id: target.endpoint.id },
        priority: priorityOf(target.event.seq),
        startAfter: new Date(at),
      },
    });
  }

  #noteHealth(endpointId: string, ok: boolean): void {
    const pausedUntil = this.#breaker.note(endpointId, ok);
    if (ok) return;
    // Its waiting events go back to the queue, so a dead endpoint holds none of this worker's slots.
    const lane = this.#lanes.get(endpointId);
    if (lane) for (const item of lane.queue.splice(0)) this.#release(item, pausedUntil);
  }

  #settle(outcome: Outcome): void {
    this.#recorder.settle(outcome);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#wake?.();
    await this.#loop;
    // Events never started go back to the queue at once, for this or another worker.
    for (const lane of this.#lanes.values()) {
      for (const { job, target } of lane.queue.splice(0)) {
        this.#release({ job, target }, Date.now());
      }
    }
    // Attempts in flight finish and are recorded; past the grace, they are cut and recorded as failed.
    const deadline = Date.now() + Math.min(this.#d.config.webhooks.timeoutMs, 5_000);
    while (this.#inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await this.#d.sender.close();
    while (this.#inflight > 0) await new Promise((r) => setTimeout(r, 10));
    await this.#recorder.drain();
  }
}
