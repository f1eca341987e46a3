// The delivery worker. It pulls delivery jobs from pg-boss, keeps one lane per endpoint (events of
// an endpoint leave in outbox order, at most `pipelining` at a time), runs up to `concurrency`
// requests across lanes, and records each attempt together with the job's completion (and the next
// attempt's job, if any) in one transaction, so an attempt is recorded exactly once.
//
// Ordering: a first attempt waits while an older event of the same endpoint, held by no lane here,
// is still waiting for its own first attempt (another worker has it, or its job is not due yet); the
// wait is bounded by fifoWaitMs from the event's creation, so a stuck event cannot block its endpoint.
// Fairness: a lane that already holds laneCap events is left out of the next fetch (pg-boss groups),
// so a slow or dead endpoint ties up at most its own lane, never the others'.
import type { Job, JobInsert, PgBoss } from "pg-boss";
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Mailer } from "../email/mailer.ts";
import * as repo from "./delivery-repository.ts";
import type { AttemptRecord, DeliveryTarget } from "./delivery-repository.ts";
import type { Sender } from "./delivery.ts";
import { DELIVER_JOB, type DeliverJobData } from "./job-names.ts";
import type { NotificationHub } from "./notifications.ts";
import { signedHeaders, signingKeys } from "./signing.ts";

const FIFO_RECHECK_MS = 100;
const IDLE_POLL_MS = 500;

export interface DelivererDeps {
  db: Db;
  boss: PgBoss;
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
  sender: Sender;
  mailer: Mailer;
  hub: NotificationHub;
}

interface Item {
  job: Job<DeliverJobData>;
  target: DeliveryTarget;
}

interface Outcome {
  job: Job<DeliverJobData>;
  record?: AttemptRecord;
  skip?: string;
  next?: JobInsert<DeliverJobData>;
}

interface Lane {
  queue: Item[];
  active: number;
}

export function retryDelayMs(baseMs: number, failedAttempt: number): number {
  // ~base, 2×base, 4×base …: with the default 4 s the ninth wait is ~17 min; ±20 % jitter spreads
  // the retries of many events that failed together.
  return Math.round(baseMs * 2 ** (failedAttempt - 1) * (0.8 + Math.random() * 0.4));
}

export class Deliverer {
  readonly #d: DelivererDeps;
  readonly #lanes = new Map<string, Lane>();
  readonly #held = new Set<string>();
  readonly #outcomes: Outcome[] = [];
  readonly #maxHeld: number;
  readonly #laneCap: number;
  readonly #pipelining: number;
  #inflight = 0;
  #stopped = false;
  #loop: Promise<void> | null = null;
  #flushing: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #unsubscribe: (() => void) | null = null;
  #lastSupervise = 0;

  constructor(deps: DelivererDeps, options: { pipelining?: number } = {}) {
    this.#d = deps;
    this.#pipelining = options.pipelining ?? deps.config.webhooks.pipelining;
    this.#laneCap = Math.max(8, this.#pipelining * 4);
    this.#maxHeld = Math.max(64, deps.config.webhooks.concurrency * 8);
  }

  start(): void {
    this.#unsubscribe = this.#d.hub.subscribe((n) => {
      if (n.kind === "jobs" || n.kind === "resync") this.kick();
    });
    this.#loop = this.#run();
  }

  kick(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#superviseNow();
        const room = this.#maxHeld - this.#held.size;
        if (room > 0) {
          const full = [...this.#lanes].filter(([, l]) => l.queue.length + l.active >= this.#laneCap).map(([id]) => id);
          const jobs = await this.#d.boss.fetch<DeliverJobData>(DELIVER_JOB, { batchSize: Math.min(room, 100), ...(full.length ? { ignoreGroups: full } : {}) });
          if (jobs.length > 0) {
            await this.#accept(jobs);
            continue;
          }
        }
      } catch (err) {
        if (this.#stopped) return;
        this.#d.log.error({ err }, "webhook delivery loop failed");
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, IDLE_POLL_MS);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  // Jobs of a process that died stay active until they expire; supervising hands them back.
  async #superviseNow(): Promise<void> {
    const every = Math.max(1_000, (this.#d.config.webhooks.jobExpireSeconds * 1000) / 2);
    if (Date.now() - this.#lastSupervise < every) return;
    this.#lastSupervise = Date.now();
    await this.#d.boss.supervise(DELIVER_JOB).catch((err: unknown) => this.#d.log.warn({ err }, "supervise failed"));
  }

  async #accept(jobs: Job<DeliverJobData>[]): Promise<void> {
    const { config, clock } = this.#d;
    const targets = new Map((await repo.loadTargets(this.#d.db, jobs.map((j) => j.data.id))).map((t) => [t.event.id, t]));
    const now = clock.now();
    const firsts: Item[] = [];
    for (const job of jobs) {
      const target = targets.get(job.data.id);
      const event = target?.event;
      if (!target || !event) {
        this.#settle({ job });
        continue;
      }
      if (job.data.redeliver) {
        if (event.payload === null) this.#settle({ job });
        else this.#enqueue({ job, target });
        continue;
      }
      if (event.status !== "pending" || job.data.attempt <= event.attempts || event.payload === null) {
        this.#settle({ job }); // already done, or a stale duplicate of an attempt that was recorded
      } else if (!target.endpoint.enabled) {
        this.#settle({ job, skip: event.id });
      } else if (job.data.attempt === 1 && now.getTime() - event.createdAt.getTime() < config.webhooks.fifoWaitMs) {
        firsts.push({ job, target });
      } else {
        this.#enqueue({ job, target });
      }
    }
    if (firsts.length > 0) {
      const endpointIds = [...new Set(firsts.map((i) => i.target.endpoint.id))];
      const held = [...this.#held, ...firsts.map((i) => i.target.event.id)];
      const oldest = await repo.oldestUnattempted(this.#d.db, endpointIds, held);
      for (const item of firsts) {
        const blocker = oldest.get(item.target.endpoint.id);
        if (blocker !== undefined && blocker < item.target.event.seq) {
          this.#settle({ job: item.job, next: { data: item.job.data, group: { id: item.target.endpoint.id }, startAfter: new Date(Date.now() + FIFO_RECHECK_MS) } });
        } else {
          this.#enqueue(item);
        }
      }
    }
    this.#pump();
  }

  #enqueue(item: Item): void {
    const id = item.target.endpoint.id;
    let lane = this.#lanes.get(id);
    if (!lane) this.#lanes.set(id, (lane = { queue: [], active: 0 }));
    this.#held.add(item.target.event.id);
    // Keep the lane in outbox order even when a later fetch brings an older event.
    let at = lane.queue.length;
    while (at > 0 && lane.queue[at - 1]!.target.event.seq > item.target.event.seq) at--;
    lane.queue.splice(at, 0, item);
  }

  #pump(): void {
    for (const [id, lane] of this.#lanes) {
      while (lane.active < this.#pipelining && lane.queue.length > 0 && this.#inflight < this.#d.config.webhooks.concurrency) {
        const item = lane.queue.shift()!;
        lane.active++;
        this.#inflight++;
        void this.#attempt(item).finally(() => {
          lane.active--;
          this.#inflight--;
          if (lane.active === 0 && lane.queue.length === 0) this.#lanes.delete(id);
          this.#pump();
        });
      }
      if (this.#inflight >= this.#d.config.webhooks.concurrency) break;
    }
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
    const attempt = job.data.redeliver ? event.attempts + 1 : job.data.attempt;
    let status = event.status;
    let next: JobInsert<DeliverJobData> | undefined;
    if (result.succeeded) status = "succeeded";
    else if (!job.data.redeliver) {
      if (attempt >= config.webhooks.maxAttempts) status = "failed";
      else {
        status = "pending";
        next = { data: { id: event.id, attempt: attempt + 1 }, group: { id: endpoint.id }, startAfter: new Date(Date.now() + retryDelayMs(config.webhooks.retryBaseMs, attempt)) };
      }
    }
    const record: AttemptRecord = {
      eventId: event.id,
      endpointId: endpoint.id,
      organizationId: event.organizationId,
      attempt,
      status,
      succeeded: result.succeeded,
      httpCode: result.httpCode,
      response: result.response,
      durationMs: result.durationMs,
      at: clock.now(),
    };
    this.#settle({ job, record, ...(next ? { next } : {}) });
  }

  #settle(outcome: Outcome): void {
    this.#outcomes.push(outcome);
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = null;
      if (this.#outcomes.length > 0) this.#settle(this.#outcomes.pop()!);
    });
  }

  async #flush(): Promise<void> {
    // Let the attempts finishing together share one transaction.
    await new Promise((r) => setImmediate(r));
    while (this.#outcomes.length > 0) {
      const batch = this.#outcomes.splice(0, 500);
      const records = batch.flatMap((o) => (o.record ? [o.record] : []));
      const now = this.#d.clock.now();
      try {
        await inTransaction(this.#d.db, async (tx) => {
          await repo.recordAttempts(tx, records);
          await repo.markSkipped(tx, batch.flatMap((o) => (o.skip ? [o.skip] : [])), now);
          const db = repo.bossDb(tx);
          const next = batch.flatMap((o) => (o.next ? [o.next] : []));
          if (next.length > 0) await this.#d.boss.insert(DELIVER_JOB, next, { db });
          await this.#d.boss.complete(DELIVER_JOB, batch.map((o) => ({ id: o.job.id, retryCount: o.job.retryCount })), null, { db });
        });
      } catch (err) {
        // The jobs stay active and come back after they expire; the attempts will be made again.
        this.#d.log.error({ err, count: batch.length }, "recording webhook attempts failed");
      }
      for (const o of batch) this.#held.delete(o.job.data.id);
      const failedEndpoints = new Set(records.filter((r) => r.status === "failed").map((r) => r.endpointId));
      for (const endpointId of failedEndpoints) await this.#maybeDisable(endpointId);
    }
    if (!this.#stopped) this.kick();
  }

  async #maybeDisable(endpointId: string): Promise<void> {
    const { db, clock, config, log, mailer } = this.#d;
    try {
      if (!(await repo.lastCompletedAllFailed(db, endpointId, config.webhooks.disableAfterFailures))) return;
      const endpoint = await inTransaction(db, (tx) => repo.disableEndpoint(tx, endpointId, clock.now()));
      if (!endpoint) return;
      log.warn({ endpointId, url: endpoint.url }, "webhook endpoint disabled after repeated failures");
      for (const to of await repo.memberEmails(db, endpoint.organizationId)) {
        await mailer.send({
          kind: "webhook_endpoint_disabled",
          to,
          subject: "A webhook endpoint was disabled",
          text:
            `The webhook endpoint ${endpoint.name ?? endpoint.url} (${endpoint.url}) was disabled because its ` +
            `${config.webhooks.disableAfterFailures} most recent events all failed to be delivered. Pending events were skipped.\n` +
            `Fix the endpoint, then re-enable it with PATCH /v1/webhooks/endpoints/${endpoint.id} {"enabled": true}.`,
        });
      }
    } catch (err) {
      log.error({ err, endpointId }, "checking a failing webhook endpoint failed");
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#wake?.();
    await this.#loop;
    // Attempts in flight finish and are recorded; jobs never started come back after they expire.
    const deadline = Date.now() + this.#d.config.webhooks.timeoutMs + 1_000;
    while (this.#inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await this.#flushing;
  }
}
