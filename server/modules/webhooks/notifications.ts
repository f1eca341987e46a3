// PostgreSQL LISTEN/NOTIFY for this process: one listening connection (postgres.js) or PGlite's
// in-process listen, fanned out to local subscribers. Every instance on the same database hears
// every committed outbox statement, which is how a `till listen` stream on one instance gets events
// produced on another. After a reconnect a "resync" is announced, since NOTIFYs sent while the
// connection was down are gone; subscribers then catch up from the database.
import type { Database } from "../../../db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { EVENTS_CHANNEL } from "./events.ts";

/** Announced after the dispatcher created jobs, so idle delivery workers fetch at once. */
export const JOBS_CHANNEL = "till_webhook_jobs";

export type Notification =
  /** Outbox rows of one statement: the organization's seqs in [first, last] (maybe others' too). */
  | { kind: "event"; organizationId: string; first: number; last: number }
  | { kind: "jobs" }
  | { kind: "resync" };
type Listener = (n: Notification) => void;

export class NotificationHub {
  readonly #database: Database;
  readonly #log: Logger;
  readonly #listeners = new Set<Listener>();
  readonly #stops: (() => Promise<void>)[] = [];

  constructor(database: Database, log: Logger) {
    this.#database = database;
    this.#log = log;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(n: Notification): void {
    for (const listener of this.#listeners) {
      try {
        listener(n);
      } catch (err) {
        this.#log.error({ err }, "notification listener failed");
      }
    }
  }

  #onEvent = (payload: string | undefined): void => {
    const [organizationId, first, last = first] = (payload ?? "").split(":");
    if (organizationId && first)
      this.#emit({ kind: "event", organizationId, first: Number(first), last: Number(last) });
  };

  #onJobs = (): void => this.#emit({ kind: "jobs" });

  async start(): Promise<void> {
    // LISTEN outlives a transaction: PostgreSQL itself, not a transaction-mode pooler.
    const { direct: client, pglite } = this.#database;
    if (client) {
      let connected = 0;
      const onListen = () => {
        if (connected++ > 0) this.#emit({ kind: "resync" });
      };
      const a = await client.listen(EVENTS_CHANNEL, this.#onEvent, onListen);
      const b = await client.listen(JOBS_CHANNEL, this.#onJobs);
      this.#stops.push(
        () => a.unlisten(),
        () => b.unlisten(),
      );
    } else if (pglite) {
      const a = await pglite.listen(EVENTS_CHANNEL, this.#onEvent);
      const b = await pglite.listen(JOBS_CHANNEL, this.#onJobs);
      this.#stops.push(a, b);
    }
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
    for (const stop of this.#stops.splice(0)) await stop().catch(() => {});
  }
}
