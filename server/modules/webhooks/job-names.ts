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
