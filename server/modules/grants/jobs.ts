// The grant worker: one pg-boss job per marked grant. It runs the benefit type's strategy (remote
// calls outside any transaction), then settles the row under a lock: granted or revoked, the error
// cleared, and benefit_grant.created/updated/revoked and customer.state_changed recorded with it.
// A failure records {message, type, timestamp} on the grant (a safe message for our own errors)
// and rethrows, so pg-boss retries the job with backoff; the grant stays marked until an attempt
// succeeds.
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { benefitOut } from "../benefits/schemas.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { customerStateOf } from "../customers/states.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { GrantFailure } from "./http.ts";
import * as repo from "./repository.ts";
import { grantWebhookOut } from "./schemas.ts";
import { APPLY_GRANT_JOB } from "./service.ts";
import { STRATEGIES, type GrantsConfig } from "./strategies.ts";

export interface GrantWorkerDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: GrantsConfig & { retryLimit: number; retryDelaySeconds: number };
}

type Action = "grant" | "revoke";
export type ApplyOutcome = "granted" | "revoked" | "skipped";

export async function applyGrant(
  workerDeps: GrantWorkerDeps,
  grantId: string,
): Promise<ApplyOutcome> {
  const grant = await repo.findGrantForJob(workerDeps.db, grantId);
  if (!grant?.pendingAction) return "skipped";
  // On the organization's clock, as the purchase or renewal that asked for it: a sandbox clock
  // moved ahead dates the grant, its events and a meter credit's start with the subscription's.
  const deps = {
    ...workerDeps,
    clock: await organizationClock(workerDeps.db, workerDeps.clock, grant.organizationId),
  };
  const action = grant.pendingAction as Action;
  const [benefitRow] = await benefitRowsByIds(deps.db, scopeOfResource(grant), [grant.benefitId]);
  const [customer] = await customersByIds(deps.db, scopeOfResource(grant), [grant.customerId]);
  const strategy = STRATEGIES[benefitRow!.type]!;
  const input = <D extends Db>(db: D, g: repo.GrantRow) => ({
    db,
    clock: deps.clock,
    config: deps.config,
    grant: g,
    benefit: benefitRow!,
    customerEmail: customer!.email ?? "",
  });
  // Revoking what was never granted has nothing to take back anywhere.
  const noop = (g: repo.GrantRow) => action === "revoke" && !g.grantedAt;
  try {
    if (strategy.remote) {
      const properties = noop(grant)
        ? grant.properties
        : await strategy[action](input(deps.db, grant));
      return await settle(deps, grant, action, async () => properties, true);
    }
    return await settle(
      deps,
      grant,
      action,
      (tx, locked) =>
        noop(locked) ? Promise.resolve(locked.properties) : strategy[action](input(tx, locked)),
      false,
    );
  } catch (err) {
    await recordFailure(deps, grant, action, err);
    deps.log.warn({ grantId, action, err }, "benefit grant attempt failed");
    throw err;
  }
}

async function settle(
  deps: GrantWorkerDeps,
  grant: repo.GrantRow,
  action: Action,
  run: (tx: Tx, locked: repo.GrantRow) => Promise<Record<string, unknown>>,
  remote: boolean,
): Promise<ApplyOutcome> {
  return inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockGrant(tx, scopeOfResource(grant), grant.id);
    if (!locked) return "skipped";
    const now = deps.clock.now();
    if (locked.pendingAction !== action) {
      // The other action was asked for meanwhile. A remote grant that went through is recorded, so
      // the pending revoke takes it back; anything else is left to the newer job.
      if (remote && action === "grant" && locked.pendingAction === "revoke") {
        await repo.updateGrant(tx, locked.id, {
          properties: await run(tx, locked),
          grantedAt: now,
          modifiedAt: now,
        });
      }
      return "skipped";
    }
    const properties = await run(tx, locked);
    const values =
      action === "grant"
        ? { grantedAt: now, revokedAt: null, announced: true }
        : { grantedAt: null, revokedAt: now };
    const updated = await repo.updateGrant(tx, locked.id, {
      ...values,
      properties,
      previousProperties: locked.properties,
      pendingAction: null,
      error: null,
      attempts: locked.attempts + 1,
      modifiedAt: now,
    });
    const type =
      action === "revoke"
        ? "benefit_grant.revoked"
        : locked.announced
          ? "benefit_grant.updated"
          : "benefit_grant.created";
    await emitChange(tx, deps.clock, updated, type);
    return action === "grant" ? "granted" : "revoked";
  });
}

async function recordFailure(
  deps: GrantWorkerDeps,
  grant: repo.GrantRow,
  action: Action,
  err: unknown,
): Promise<void> {
  // A GrantFailure is written for the seller (an answer from Discord or GitHub to act on). Anything
  // else is ours and may carry SQL and its parameters: the seller gets a safe message, the log the rest.
  const error =
    err instanceof GrantFailure
      ? { message: err.message, type: err.type, timestamp: deps.clock.now().toISOString() }
      : {
          message:
            `The benefit could not be ${action === "grant" ? "granted" : "revoked"} because of an ` +
            `error on our side; it is retried automatically. If it keeps failing, contact support ` +
            `with the grant id ${grant.id}.`,
          type: "internal_error",
          timestamp: deps.clock.now().toISOString(),
        };
  await inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockGrant(tx, scopeOfResource(grant), grant.id);
    if (!locked || locked.pendingAction !== action) return;
    const updated = await repo.updateGrant(tx, grant.id, {
      error,
      attempts: locked.attempts + 1,
      modifiedAt: deps.clock.now(),
    });
    await emitChange(tx, deps.clock, updated, "benefit_grant.updated");
  });
}

async function emitChange(tx: Tx, clock: Clock, grant: repo.GrantRow, type: string): Promise<void> {
  const [[customer], [benefit]] = await Promise.all([
    customersByIds(tx, scopeOfResource(grant), [grant.customerId]),
    benefitRowsByIds(tx, scopeOfResource(grant), [grant.benefitId]),
  ]);
  await recordEvent(tx, clock, {
    organizationId: grant.organizationId,
    type,
    data: grantWebhookOut(grant, customer!, benefitOut(benefit!)),
  });
  const state = await customerStateOf(tx, scopeOfResource(grant), grant.customerId);
  if (state)
    await recordEvent(tx, clock, {
      organizationId: grant.organizationId,
      type: "customer.state_changed",
      data: state,
    });
}

export function applyGrantsJob(deps: GrantWorkerDeps): JobDefinition<{ grantId: string }> {
  return {
    name: APPLY_GRANT_JOB,
    queue: {
      retryLimit: deps.config.retryLimit,
      retryDelay: deps.config.retryDelaySeconds,
      retryBackoff: true,
      retryDelayMax: 3600,
      // A job whose worker died (killed mid-grant) goes back to the queue at pg-boss's next check,
      // within about a minute, rather than after the default 15-minute expiry.
      heartbeatSeconds: JOB_HEARTBEAT_SECONDS,
    },
    work: { pollingIntervalSeconds: 0.5 },
    async handle(jobs) {
      for (const job of jobs) await applyGrant(deps, job.data.grantId);
    },
  };
}
