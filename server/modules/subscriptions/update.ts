// PATCH /v1/subscriptions/{id} (and the portal's): cancel at period end, uncancel, revoke now,
// pause at period end / resume, clear a pending update, move the period end, set or end a trial,
// change metadata or discount, and change the plan (plan-change.ts). Each change takes the row lock,
// runs on the organization's clock, records its events and customer.state_changed in the same
// transaction, and re-schedules the subscription's next boundary.
import { type Db, inTransaction, type Tx } from "../../../db/client.ts";
import { assertAccessible, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  RequestValidationError,
  ResourceNotFound,
  BadRequest,
  ResourceUnavailable,
} from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { revokeBenefitsForSubscription } from "../grants/seam.ts";
import { revokeSeatsOfSubscription } from "../seats/subscription-end.ts";
import { resetNotEnabled, resetProrationEnabled } from "../organizations/queries.ts";
import { pendingOrdersOfSubscription, serializeOrders, updateOrderRow } from "../orders/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { releaseHoldsOfSubscription, returnBalanceOfVoidedOrder } from "../wallets/service.ts";
import { fixedClock, organizationClock } from "../sandbox-clock/queries.ts";
import type { BillingDeps } from "./deps.ts";
import { discountChange, withDiscountHeld } from "./discount-change.ts";
import {
  AlreadyCanceledSubscription,
  CannotPauseSubscription,
  InactiveSubscription,
  NoScheduledPause,
  NotPausedSubscription,
} from "./errors.ts";
import { runDue } from "./due.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { SubscriptionLocked, withLease } from "./lease.ts";
import { upgradeClaimed } from "./lease-repository.ts";
import { changePlan, discountedAmount, settleUsageBeforeEnd } from "./plan-change.ts";
import { rowAfterPlan } from "./plan-period.ts";
import type { ProductVisibility } from "./plan-target.ts";
import { balanceOwnerOf } from "./renewal.ts";
import { changeSeats } from "./seats-change.ts";
import { requestedTrialEnd, withinReach } from "./trial-change.ts";
import { resumeSubscription } from "./period-end.ts";
import * as repo from "./repository.ts";
import { scheduleAt, scheduleNext } from "./schedule.ts";
import { hasEnded, type SubscriptionUpdate } from "./schemas.ts";
import { serializeSubscription, type SubscriptionDeps } from "./service.ts";

export type UpdateDeps = SubscriptionDeps & Partial<BillingDeps>;

export async function updateSubscription(
  deps: UpdateDeps,
  ctx: AuthContext,
  id: string,
  input: SubscriptionUpdate,
  /** The visibilities of the products a plan change may move to (all when null). */
  visibilities: readonly ProductVisibility[] | null = null,
) {
  const row = await repo.findSubscription(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Subscription not found.");
  assertAccessible(ctx, row.organizationId, "Subscription not found.");
  return withLease(deps.db, row, (found) => changeLeased(deps, found, input, visibilities));
}

/** The change, with the subscription leased and read again under the lease. */
async function changeLeased(
  deps: UpdateDeps,
  found: repo.SubscriptionRow,
  input: SubscriptionUpdate,
  visibilities: readonly ProductVisibility[] | null,
) {
  const id = found.id;
  // A checkout upgrading it has claimed it and is charging: its fulfilment decides the plan.
  if (await upgradeClaimed(deps.db, found)) throw new SubscriptionLocked();
  await assertResetAllowed(deps.db, found, input);
  // One instant for the whole change: "now" in a trial_end is the time the renewal runs at.
  const now = (await organizationClock(deps.db, deps.clock, found.organizationId)).now();
  const clock = fixedClock(now);
  if ("resume" in input) {
    if (found.status !== "paused") throw new NotPausedSubscription();
    await resumeSubscription(billing(deps), found, now);
    return getRendered(deps, found);
  }
  if ("revoke" in input) await settleUsageBeforeEnd(billing(deps), found, now);
  // A plan change that ended a trial: the renewal bills the new product before answering.
  let planDueNow = false;
  const plan = "product_id" in input && input.product_id ? input : null;
  if (plan?.product_id) {
    if (hasEnded(found.status) || found.cancelAtPeriodEnd) throw new AlreadyCanceledSubscription();
    if (plan.product_id === found.productId)
      throw RequestValidationError.field(
        ["body", "product_id"],
        "The subscription is already on this product.",
        "value_error",
      );
    // The plan change commits (and may charge) before the rest of the update is applied: the rest
    // is tried first and rolled back, so a bad discount or trial end is refused before anything.
    if (plan.discount_id !== undefined || plan.trial_end != null) {
      // Checked against the product and period the plan change leaves.
      const after = await rowAfterPlan(
        billing(deps),
        found,
        plan.product_id,
        plan.proration_behavior,
        now,
      );
      await dryRun(deps.db, (tx) =>
        applyChange(tx, deps, clock, after, { ...plan, product_id: undefined }),
      );
    }
  }
  if ("seats" in input) {
    if (hasEnded(found.status) || found.cancelAtPeriodEnd) throw new AlreadyCanceledSubscription();
    await changeSeats(billing(deps), found, input.seats, input.proration_behavior, now);
    return getRendered(deps, found);
  }
  // A discount sent with a plan change is redeemed before the change charges, not after.
  const result = await withDiscountHeld(deps.db, plan?.discount_id, async (held) => {
    if (plan?.product_id)
      planDueNow = await changePlan(
        billing(deps),
        found,
        plan.product_id,
        plan.proration_behavior,
        now,
        visibilities,
      );
    return applyRest(deps, clock, found, input, held);
  });
  if (result.dueNow || planDueNow) {
    // trial_end "now" or a period end moved to now: the renewal happens before answering.
    await runDue(billing(deps), id, now, { leased: true });
    return getRendered(deps, found);
  }
  return result.data;
}

/** The update but a plan or seat change, with its events, in one transaction under the row lock. */
function applyRest(
  deps: UpdateDeps,
  clock: Clock,
  found: repo.SubscriptionRow,
  input: SubscriptionUpdate,
  discountHeld: boolean,
) {
  return inTransaction(deps.db, async (tx) => {
    const s = (await repo.lockSubscription(tx, scopeOfResource(found), found.id))!;
    const change = await applyChange(tx, deps, clock, s, input, discountHeld);
    if (!change) return { data: await serializeSubscription(tx, deps.baseUrl, s), dueNow: false };
    const data = await serializeSubscription(tx, deps.baseUrl, change.row);
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, change.row, change.events);
    await recordCustomerState(tx, clock, s);
    return { data, dueNow: change.dueNow ?? false };
  });
}

/**
 * As Polar, a plan or seat change that asks for `reset` by name needs the organization's flag
 * (a `reset` default was allowed when the flag was on).
 */
async function assertResetAllowed(db: Db, s: repo.SubscriptionRow, input: SubscriptionUpdate) {
  const changes = ("product_id" in input && input.product_id) || "seats" in input;
  if (
    changes &&
    "proration_behavior" in input &&
    input.proration_behavior === "reset" &&
    !(await resetProrationEnabled(db, s.organizationId))
  )
    throw resetNotEnabled(["body", "proration_behavior"]);
}

function billing(deps: UpdateDeps): BillingDeps {
  if (!deps.processor || !deps.tax || !deps.retryDays)
    throw new Error("the billing engine is not configured for this caller");
  return deps as BillingDeps;
}

/** The subscription as it is after a change, re-read under the scope it was found in. */
async function getRendered(deps: UpdateDeps, found: repo.SubscriptionRow) {
  const row = await repo.findSubscription(deps.db, scopeOfResource(found), found.id);
  return serializeSubscription(deps.db, deps.baseUrl, row!);
}

interface Change {
  row: repo.SubscriptionRow;
  events: string[];
  dueNow?: boolean;
}

export async function applyChange(
  tx: Tx,
  deps: UpdateDeps,
  clock: Clock,
  s: repo.SubscriptionRow,
  input: SubscriptionUpdate,
  /** A redemption of the discount set was taken for this change already (withDiscountHeld). */
  discountHeld = false,
): Promise<Change | null> {
  const now = clock.now();
  if ("resume" in input || "seats" in input) return null;
  if ("revoke" in input) {
    if (hasEnded(s.status)) throw new AlreadyCanceledSubscription();
    const row = await scheduleAt(
      tx,
      deps.queue,
      await repo.updateSubscription(tx, s.id, {
        ...reasonOf(s, input),
        status: "canceled",
        canceledAt: s.canceledAt ?? now,
        endsAt: now,
        endedAt: now,
        cancelAtPeriodEnd: false,
        modifiedAt: now,
      }),
      null,
    );
    await revokeBenefitsForSubscription(tx, { clock, queue: deps.queue }, row);
    await revokeSeatsOfSubscription(tx, clock, row);
    await releaseHoldsOfSubscription(tx, balanceOwnerOf(row), row.id, now);
    // A revoked subscription stops collecting: its pending orders are voided (as Polar), the
    // renewal dunning was retrying and any usage settlement that declined.
    for (const pending of await pendingOrdersOfSubscription(tx, s)) {
      const voided = await updateOrderRow(tx, pending.id, {
        status: "void",
        nextPaymentAttemptAt: null,
        modifiedAt: now,
      });
      await returnBalanceOfVoidedOrder(tx, voided, now);
      const [data] = await serializeOrders(tx, deps.baseUrl, [voided]);
      await recordEvent(tx, clock, {
        organizationId: s.organizationId,
        type: "order.updated",
        data,
      });
    }
    return {
      row,
      events: [
        "subscription.updated",
        ...(s.cancelAtPeriodEnd ? [] : ["subscription.canceled"]),
        "subscription.revoked",
      ],
    };
  }
  if ("cancel_at_period_end" in input) {
    if (input.cancel_at_period_end) {
      // As Polar's can_cancel: only a billable subscription has a period end to cancel at (a
      // paused one is revoked, or resumed first); a cancellation takes a scheduled pause back.
      if (!BILLABLE.has(s.status) || s.endedAt || s.cancelAtPeriodEnd || s.endsAt)
        throw new AlreadyCanceledSubscription();
      const row = await repo.updateSubscription(tx, s.id, {
        ...reasonOf(s, input),
        cancelAtPeriodEnd: true,
        canceledAt: now,
        endsAt: s.currentPeriodEnd,
        pauseAtPeriodEnd: false,
        resumesAt: null,
        modifiedAt: now,
      });
      return { row, events: ["subscription.updated", "subscription.canceled"] };
    }
    // As Polar's uncancel: an ended subscription is gone, not merely canceled.
    if (s.endedAt || hasEnded(s.status)) throw new ResourceUnavailable();
    // As Polar's can_uncancel: only a billable subscription set to cancel can be kept.
    if (!s.cancelAtPeriodEnd || !BILLABLE.has(s.status)) throw new BadRequest("Bad request");
    const row = await repo.updateSubscription(tx, s.id, {
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      customerCancellationReason: null,
      customerCancellationComment: null,
      modifiedAt: now,
    });
    return { row, events: ["subscription.updated", "subscription.uncanceled"] };
  }
  if ("pause_at_period_end" in input) {
    // As Polar's can_pause and can_cancel_scheduled_pause: an active subscription set to
    // neither cancel nor pause pauses; only one scheduled to pause takes that back.
    if (
      input.pause_at_period_end &&
      (s.status !== "active" || s.cancelAtPeriodEnd || s.pauseAtPeriodEnd || s.endsAt)
    )
      throw new CannotPauseSubscription();
    if (!input.pause_at_period_end && (s.status !== "active" || !s.pauseAtPeriodEnd))
      throw new NoScheduledPause();
    const resumesAt = input.resumes_at ? new Date(input.resumes_at) : null;
    if (resumesAt && resumesAt <= s.currentPeriodEnd)
      throw RequestValidationError.field(
        ["body", "resumes_at"],
        "resumes_at must be after the current period end.",
        "value_error",
      );
    const row = await repo.updateSubscription(tx, s.id, {
      pauseAtPeriodEnd: input.pause_at_period_end,
      resumesAt: input.pause_at_period_end ? resumesAt : null,
      modifiedAt: now,
    });
    return { row, events: ["subscription.updated"] };
  }
  if ("pending_update" in input) {
    if (!s.pendingUpdate) return null;
    const row = await repo.updateSubscription(tx, s.id, { pendingUpdate: null, modifiedAt: now });
    return { row, events: ["subscription.updated"] };
  }
  if ("current_billing_period_end" in input) {
    if (hasEnded(s.status)) throw new AlreadyCanceledSubscription();
    // As Polar: a paused or past due subscription's period is not the seller's to move (the
    // resume, or the payment being retried, says where it goes), nor the end of one set to cancel.
    if (s.status !== "active" && s.status !== "trialing") throw new InactiveSubscription(s.id);
    if (s.cancelAtPeriodEnd) throw new AlreadyCanceledSubscription();
    const end = new Date(input.current_billing_period_end);
    if (end <= now)
      throw RequestValidationError.field(
        ["body", "current_billing_period_end"],
        "The new period end must be in the future.",
        "value_error",
      );
    withinReach(["body", "current_billing_period_end"], end, now);
    const row = await scheduleNext(
      tx,
      deps.queue,
      await repo.updateSubscription(tx, s.id, {
        currentPeriodEnd: end,
        anchorDay: end.getUTCDate(),
        modifiedAt: now,
      }),
    );
    return { row, events: ["subscription.updated"] };
  }
  // SubscriptionUpdateBase: metadata, discount, trial end (the product was handled before).
  const values: Partial<repo.SubscriptionRow> = {};
  let dueNow = false;
  if (input.metadata) values.metadata = input.metadata;
  if (input.discount_id !== undefined) {
    if (hasEnded(s.status)) throw new AlreadyCanceledSubscription();
    values.discountId = await discountChange(tx, s, input.discount_id, now, discountHeld);
    // As Polar, a new discount counts its duration from the first renewal it applies to, and the
    // amount says what a period costs with it from now on.
    values.discountAppliedAt = null;
    // Read in the change's transaction (the embedded database has one connection).
    values.amount = await discountedAmount({ ...billing(deps), db: tx }, { ...s, ...values });
  }
  if (input.trial_end !== undefined && input.trial_end !== null) {
    const end = requestedTrialEnd(s, input.trial_end, now);
    values.status = "trialing";
    values.trialStart = s.trialStart ?? now;
    values.trialEnd = end;
    values.currentPeriodEnd = end;
    // One set to cancel ends where its period now does.
    if (s.cancelAtPeriodEnd) values.endsAt = end;
    values.anchorDay = end.getUTCDate();
    dueNow = end.getTime() <= now.getTime();
  }
  if (Object.keys(values).length === 0) return null;
  const row = await scheduleNext(
    tx,
    deps.queue,
    await repo.updateSubscription(tx, s.id, { ...values, modifiedAt: now }),
  );
  return { row, events: ["subscription.updated"], dueNow };
}

/** Polar's billable statuses: those a cancel and an uncancel apply to. */
const BILLABLE = new Set(["trialing", "active", "past_due"]);

function reasonOf(
  s: repo.SubscriptionRow,
  input: {
    customer_cancellation_reason?: string | null;
    customer_cancellation_comment?: string | null;
  },
) {
  return {
    customerCancellationReason: input.customer_cancellation_reason ?? s.customerCancellationReason,
    customerCancellationComment:
      input.customer_cancellation_comment ?? s.customerCancellationComment,
  };
}

/** Runs `fn` in a transaction that is always rolled back; its errors go to the caller. */
async function dryRun(db: Db, fn: (tx: Tx) => Promise<unknown>): Promise<void> {
  const rolledBack = new Error("dry run");
  try {
    await inTransaction(db, async (tx) => {
      await fn(tx);
      throw rolledBack;
    });
  } catch (err) {
    if (err !== rolledBack) throw err;
  }
}
