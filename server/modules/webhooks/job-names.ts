// Queue names and job data of the webhooks module, apart from the code that works them.
export const DELIVER_JOB = "webhooks.deliver";
export const ARCHIVE_JOB = "webhooks.archive";

export interface DeliverJobData {
  /** The endpoint event (its id is the webhook-id). */
  id: string;
  /** Which attempt this job is: 1 for the first; a redelivery carries 0. */
  attempt: number;
  redeliver?: boolean;
}

/**
 * pg-boss hands out jobs by priority, then creation time. Jobs created in one transaction tie on
 * creation time, so the outbox order is carried in the priority instead: an older event's jobs come
 * first, which is what the per-endpoint FIFO wants. (Wraps after two billion events; order is then
 * only approximate for one fetch, and the FIFO check still holds it.)
 */
export function priorityOf(seq: number): number {
  return -(seq % 2_000_000_000);
}
