// Sending failed mail again: every minute the worker retries the outbox's messages whose delivery
// failed (the SMTP server was down or refused them) during the last day, so a relay outage delays a
// receipt or a sign-in link instead of losing it. Messages older than a day are left as failed.
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Mailer } from "./mailer.ts";

export const RETRY_MAIL_JOB = "email.retry-failed";
const RETRY_WINDOW_MS = 86_400_000;

export function retryMailJob(deps: {
  clock: Clock;
  log: Logger;
  mailer: Mailer | null;
}): JobDefinition {
  return {
    name: RETRY_MAIL_JOB,
    // One run at a time across workers (two would send the same message twice), one more queued;
    // a run whose worker died stops holding the queue within about a minute.
    queue: { policy: "stately", heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    async handle() {
      if (!deps.mailer?.retryFailed) return { sent: 0 };
      const since = new Date(deps.clock.now().getTime() - RETRY_WINDOW_MS);
      const sent = await deps.mailer.retryFailed(since);
      if (sent > 0) deps.log.info({ sent }, "failed emails sent again");
      return { sent };
    },
  };
}
