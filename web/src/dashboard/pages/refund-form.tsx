// Refunding an order from the orders page: an amount in the order's currency (the whole refundable
// amount by default, or part of it) and a reason. Amounts are typed and shown in dollars (or the
// order's currency), never in minor units.
import { useEffect, useRef } from "react";
import { api } from "../api.ts";
import { toMajorText, toMinorUnits } from "../format.ts";
import type { Order } from "../types.ts";
import { FormActions, money, submit, useAction } from "../ui.tsx";

const REASONS: [string, string][] = [
  ["customer_request", "Customer request"],
  ["duplicate", "Duplicate"],
  ["fraudulent", "Fraudulent"],
  ["service_disruption", "Service disruption"],
  ["satisfaction_guarantee", "Satisfaction guarantee"],
  ["other", "Other"],
];

/** The part of the order's net amount not refunded yet (Polar's refundable_amount). */
export function refundable(o: Order): number {
  return o.refundable_amount ?? o.total_amount - o.refunded_amount;
}

export function RefundForm(props: { order: Order; onDone(): void; onCancel(): void }) {
  const { order } = props;
  const action = useAction();
  const amountRef = useRef<HTMLInputElement>(null);
  const max = refundable(order);
  useEffect(() => amountRef.current?.focus(), []);

  const onSubmit = submit((data) => {
    const typed = String(data.get("amount") ?? "").trim();
    const minor = toMinorUnits(typed, order.currency);
    if (minor === null || minor <= 0)
      return action.setError(`Enter an amount, for example ${toMajorText(max, order.currency)}.`);
    if (minor > max)
      return action.setError(
        `At most ${money(max, order.currency)} can be refunded on this order.`,
      );
    void action.run(async () => {
      await api.post("/v1/refunds/", {
        order_id: order.id,
        amount: minor,
        reason: String(data.get("reason")),
      });
      props.onDone();
    });
  });

  return (
    <form
      className="card stack refund-form"
      onSubmit={onSubmit}
      aria-labelledby="refund-title"
      noValidate
    >
      <h2 id="refund-title">
        Refund {order.customer.email}'s order ({money(order.total_amount, order.currency)})
      </h2>
      <label className="field">
        <span>Amount ({order.currency.toUpperCase()})</span>
        <input
          ref={amountRef}
          name="amount"
          inputMode="decimal"
          defaultValue={toMajorText(max, order.currency)}
          aria-describedby="refund-help"
        />
      </label>
      <p className="muted" id="refund-help">
        Up to {money(max, order.currency)}. A smaller amount refunds part of the order.
      </p>
      <label className="field">
        <span>Reason</span>
        <select name="reason" defaultValue="customer_request">
          {REASONS.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </label>
      <FormActions
        action={action}
        label="Refund"
        busyLabel="Refunding…"
        onCancel={props.onCancel}
      />
    </form>
  );
}
