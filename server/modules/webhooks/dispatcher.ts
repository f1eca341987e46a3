// Turns committed outbox rows into deliveries: for each row, one endpoint event per enabled endpoint
// of the organization subscribed to its type, and one pg-boss job per endpoint event, inserted in
// the same transaction that marks the row dispatched. A crash at any point leaves either nothing
// done (the row is still undispatched and is picked up again) or everything done.
import { sql } from "drizzle-orm";
import type { JobInsert, PgBoss } from "pg-boss";
import { inTransaction, rowsOf, type Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import type { Logger } from "../../lib/logger.ts";
import * as repo from "./delivery-repository.ts";
import { formatPayload } from "./formats.ts";
import { DELIVER_JOB, priorityOf, type DeliverJobData } from "./job-names.ts";
import { JOBS_CHANNEL, type NotificationHub } from "./notifications.ts";

const BATCH = 1_000;
const POLL_MS = 1_000;
// A few milliseconds of patience lets events committed together share one dispatch transaction. On
// embedded PGlite every statement takes this thread's time from the deliveries, so under a steady
// inflow it waits longer and dispatches fewer, larger batches.
const COALESCE_MS = 5;
const COALESCE_EMBEDDED_MS = 25;
// One dispatcher at a time across all instances, so endpoint events are created in outbox order.
const DISPATCH_LOCK = 741_100_105;

export interface DispatcherDeps {
  db: Db;
  boss: PgBoss;
  clock: Clock;
  log: Logger;
  hub: NotificationHub;
  /**
   * Set when the database is embedded PGlite: then this process is the only one on it, so no lock
   * is needed to keep dispatchers apart, and new jobs are announced by calling this (after commit)
   * rather than through NOTIFY.
   */
  embedded?: { jobsCreated(): void };
}

export class Dispatcher {
  readonly #deps: DispatcherDeps;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  #timer: NodeJS.Timeout | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#unsubscribe = this.#deps.hub.subscribe((n) => {
      if (n.kind !== "jobs") this.kick();
    });
    this.#timer = setInterval(() => this.kick(), POLL_MS);
    this.kick();
  }

  /** Runs a dispatch pass now, or right after the one under way. */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const coalesce = this.#deps.embedded ? COALESCE_EMBEDDED_MS : COALESCE_MS;
    this.#running = new Promise((r) => setTimeout(r, coalesce))
      .then(() => this.#loop())
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  async #loop(): Promise<void> {
    try {
      while (!this.#stopped) {
        const n = await this.dispatchOnce();
        if (n < BATCH) return;
      }
    } catch (err) {
      this.#deps.log.error({ err }, "webhook dispatch failed");
    }
  }

  /** One transaction: up to BATCH outbox rows fanned out. Returns how many rows it took. */
  async dispatchOnce(): Promise<number> {
    const { db, boss, clock, embedded } = this.#deps;
    let jobsCreated = false;
    const n = await inTransaction(db, async (tx) => {
      if (!embedded) {
        const [lock] = rowsOf<{ ok: boolean }>(
          await tx.execute(sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as ok`),
        );
        if (!lock?.ok) {
          this.#again = true;
          return 0;
        }
      }
      const rows = await repo.claimUndispatched(tx, BATCH);
      if (rows.length === 0) return 0;
      const now = clock.now();
      const endpoints = await repo.enabledEndpoints(tx, scopeOfResource(...rows));
      const owed = rows.flatMap((row) =>
        endpoints
          .filter((e) => e.organizationId === row.organizationId && e.events.includes(row.type))
          .map((endpoint) => ({ row, endpoint })),
      );
      const payloads = await repo.payloadsOf(tx, [...new Set(owed.map((o) => o.row.id))]);
      const values: Parameters<typeof repo.insertEndpointEvents>[1] = owed.map(
        ({ row, endpoint }) => ({
          organizationId: row.organizationId,
          endpointId: endpoint.id,
          eventId: row.id,
          seq: row.seq,
          type: row.type,
          payload: formatPayload(endpoint.format, payloads.get(row.id)!),
          createdAt: now,
        }),
      );
      const created = await repo.insertEndpointEvents(tx, values);
      if (created.length > 0) {
        const jobs: JobInsert<DeliverJobData>[] = created.map((c) => ({
          data: { id: c.id, attempt: 1 },
          group: { id: c.endpointId },
          priority: priorityOf(c.seq),
        }));
        await boss.insert(DELIVER_JOB, jobs, { db: repo.bossDb(tx) });
        if (!embedded) await tx.execute(sql`select pg_notify(${JOBS_CHANNEL}, '')`);
        jobsCreated = true;
      }
      await repo.markDispatched(
        tx,
        rows.map((r) => r.id),
        now,
      );
      return rows.length;
    });
    if (jobsCreated) embedded?.jobsCreated();
    return n;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }
}
