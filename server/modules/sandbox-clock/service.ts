// The sandbox clock: each organization's billing time runs ahead of the real clock by an offset
// that only grows. Advancing runs every piece of billing work that falls due up to the target, in
// time order and committed, before it answers, so a seller sees a year of renewals, retries and
// cancellations in one call (and the organization's open checkouts expire). Moving to the same
// time again finds nothing due.
import type { Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { startHeartbeat } from "../../lib/heartbeat.ts";
import { type ExpiryDeps, expireCheckouts } from "../checkouts/jobs.ts";
import type { BillingDeps } from "../subscriptions/deps.ts";
import { runDueUntil } from "../subscriptions/jobs.ts";
import { offsetClock } from "./queries.ts";
import * as repo from "./repository.ts";
import { clockOut, type ClockAdvance, MAX_ADVANCE_SECONDS } from "./schemas.ts";

export type SandboxClockDeps = BillingDeps & {
  db: Db;
  clock: Clock;
  checkouts: ExpiryDeps;
  /** How long one advance may work (SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS). */
  advanceSeconds: number;
};

export async function showClock(
  deps: SandboxClockDeps,
  ctx: AuthContext,
  organizationId: string | null | undefined,
) {
  const orgId = organizationForWrite(ctx, organizationId, ["query", "organization_id"]);
  const offset = await repo.offsetOf(deps.db, scopeOfCaller(ctx, orgId), orgId);
  return clockOut(orgId, offsetClock(deps.clock, offset).now(), offset);
}

/**
 * How long an advance's lease on its organization's clock lasts unless renewed. A running advance
 * renews it every HEARTBEAT_MS however long its work takes; one whose process died frees the
 * clock this long after its last heartbeat.
 */
export const ADVANCE_LEASE_MS = 30_000;
const HEARTBEAT_MS = ADVANCE_LEASE_MS / 3;

export class ClockAdvancing extends ApiError {
  constructor() {
    super(
      409,
      "ClockAdvancing",
      "The sandbox clock is being advanced by another request; retry when it has finished.",
    );
  }
}

/**
 * An advance that worked its whole time limit (a long move over many short periods). What it did
 * is committed and each piece is done once, so the same request sent again goes on from there.
 */
export class ClockAdvanceTimeout extends ApiError {
  constructor(seconds: number, reached: Date, target: Date) {
    super(
      503,
      "ClockAdvanceTimeout",
      `This advance worked for ${seconds} s, the most one request may. The clock moved to ${reached.toISOString()}, with everything due until then done; advance it to ${target.toISOString()} again to go on.`,
    );
  }
}

/** Why an advance stopped early: its lease lapsed, or its time ran out. */
const LEASE_LOST = "lease";
const TIME_UP = "time";

export async function advanceClock(deps: SandboxClockDeps, ctx: AuthContext, input: ClockAdvance) {
  const orgId = organizationForWrite(ctx, input.organization_id);
  // One advance at a time per organization: two that both read the same time would both move
  // the clock from it, and `seconds` given twice would move it once.
  const leaseFrom = (at: Date) => new Date(at.getTime() + ADVANCE_LEASE_MS);
  const real = deps.clock.now();
  let held = leaseFrom(real);
  const leased = await repo.leaseClock(deps.db, orgId, real, held);
  if (leased === null) throw new ClockAdvancing();
  const stop = new AbortController();
  const stopHeartbeat = startHeartbeat(HEARTBEAT_MS, async () => {
    const next = leaseFrom(deps.clock.now());
    if (await repo.renewLease(deps.db, orgId, held, next)) held = next;
    else stop.abort(LEASE_LOST);
  });
  const limit = setTimeout(() => stop.abort(TIME_UP), deps.advanceSeconds * 1000);
  try {
    return await advanceLeased(
      deps,
      ctx,
      orgId,
      offsetClock(deps.clock, leased),
      input,
      stop.signal,
    );
  } finally {
    clearTimeout(limit);
    await stopHeartbeat();
    await repo.releaseClock(deps.db, orgId, held);
  }
}

async function advanceLeased(
  deps: SandboxClockDeps,
  ctx: AuthContext,
  orgId: string,
  clock: Clock,
  input: ClockAdvance,
  stop: AbortSignal,
) {
  const current = clock.now();
  const target = input.to
    ? new Date(input.to)
    : new Date(current.getTime() + (input.seconds ?? 0) * 1000);
  // A second of slack: "to: now" computed by the caller a moment ago is not a move backwards.
  if (target.getTime() < current.getTime() - 1000)
    throw RequestValidationError.field(
      ["body", "to"],
      `The sandbox clock only moves forward; it is now ${current.toISOString()}.`,
      "value_error",
    );
  if (target.getTime() - current.getTime() > MAX_ADVANCE_SECONDS * 1000)
    throw RequestValidationError.field(
      ["body", "to"],
      `The sandbox clock moves at most ${MAX_ADVANCE_SECONDS / 86_400} days in one call; it is now ${current.toISOString()}.`,
      "value_error",
    );
  const scope = scopeOfCaller(ctx, orgId);
  // Out of time, it stops where everything due is done, and the clock moves only that far.
  const { stoppedAt } = await runDueUntil(deps, scope, clock, target, stop);
  const reached = stoppedAt && stoppedAt < target ? stoppedAt : target;
  // Checkout sessions live in real time but expire in the organization's: moving past a
  // session's expiry expires it, as the minute job would when that time comes.
  await expireCheckouts(deps.checkouts, { scope, at: reached });
  // A lease that lapsed (this process stalled past it) may be another advance's now: its offset
  // is that advance's to write.
  if (stop.reason === LEASE_LOST) throw new ClockAdvancing();
  // Never behind real time: a target a moment past (`seconds: 0`, or the second of slack above).
  const wanted = Math.max(0, reached.getTime() - deps.clock.now().getTime());
  const offset = await repo.raiseOffset(deps.db, orgId, wanted, deps.clock.now());
  // The answer names the time reached itself (the clock runs on from it in real time).
  const now = offset === wanted && wanted > 0 ? reached : offsetClock(deps.clock, offset).now();
  if (reached < target) throw new ClockAdvanceTimeout(deps.advanceSeconds, now, target);
  return clockOut(orgId, now, offset);
}

export async function resetClock(
  deps: SandboxClockDeps,
  ctx: AuthContext,
  organizationId: string | null | undefined,
) {
  const orgId = organizationForWrite(ctx, organizationId);
  if (!(await repo.deleteOffset(deps.db, orgId, deps.clock.now()))) throw new ClockAdvancing();
  return clockOut(orgId, deps.clock.now(), 0);
}
