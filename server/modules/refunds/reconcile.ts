// The refund reconciler: a refund still pending PAYMENTS_RECONCILE_AFTER_SECONDS after it was made
// never got its processor's answer (the process died, or the connection was cut). The processor is
// asked what it made under the refund's key and that is applied; one that never reached it is sent
// again under the same key, which the seller asked for and the reservation still holds. One the
// processor took but still holds as pending stays pending until the processor says how it ended.
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { findOrderRow } from "../orders/service.ts";
import type { RefundResult } from "../payments/processor.ts";
import * as repo from "./repository.ts";
import { refundRequest, type RefundDeps } from "./service.ts";
import { settleRefund } from "./settle.ts";

export const RECONCILE_REFUNDS_JOB = "refunds.reconcile";
const BATCH = 100;

export interface RefundReconcileDeps extends RefundDeps {
  reconcileAfterSeconds: number;
}

export async function reconcileRefunds(deps: RefundReconcileDeps, log?: Logger) {
  const result = { succeeded: 0, failed: 0, pending: 0 };
  const cutoff = new Date(deps.clock.now().getTime() - deps.reconcileAfterSeconds * 1000);
  for (const row of await repo.stalePendingForJob(deps.db, cutoff, BATCH)) {
    const order = await findOrderRow(deps.db, scopeOfResource(row), row.orderId);
    if (!order?.processorPaymentId) continue;
    const request = refundRequest(row, order.processorPaymentId);
    const answer = await askProcessor(deps, request).catch((err: unknown) => {
      log?.warn({ err, refundId: row.id }, "refund lookup failed; retried on the next run");
      return null;
    });
    if (!answer) {
      result.pending++;
      continue;
    }
    const settled = await settleRefund(deps, row.id, answer);
    if (settled?.status === "succeeded" || settled?.status === "failed") result[settled.status]++;
    else if (settled) result.pending++;
  }
  if (result.succeeded + result.failed > 0) log?.info(result, "reconciled pending refunds");
  return result;
}

async function askProcessor(
  deps: RefundReconcileDeps,
  request: ReturnType<typeof refundRequest>,
): Promise<RefundResult> {
  const made = deps.processor.lookupRefund ? await deps.processor.lookupRefund(request) : null;
  return made ?? deps.processor.refund(request);
}

export function reconcileRefundsJob(deps: RefundReconcileDeps, log: Logger): JobDefinition {
  return {
    name: RECONCILE_REFUNDS_JOB,
    queue: { retryLimit: 3, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => reconcileRefunds(deps, log),
  };
}
