// The recurring fields of a product: a one-time product has none of them, a trial's interval and
// count go together, and a meter cycle must divide the billing interval into whole cycles.
import { RequestValidationError } from "../../lib/errors.ts";
import { dividesEvenly, type Interval } from "../../lib/periods.ts";

export function checkRecurringFields(
  input: {
    recurring_interval?: string | null | undefined;
    recurring_interval_count?: number | null | undefined;
    trial_interval?: string | null | undefined;
    trial_interval_count?: number | null | undefined;
  },
  recurring: boolean,
) {
  if (!recurring) {
    if (input.recurring_interval_count != null)
      throw RequestValidationError.field(
        ["body", "recurring_interval_count"],
        "One-time products don't have a recurring interval count.",
      );
    if (input.trial_interval != null || input.trial_interval_count != null) {
      throw RequestValidationError.field(
        ["body", input.trial_interval != null ? "trial_interval" : "trial_interval_count"],
        "Only recurring products can have a trial.",
      );
    }
  }
  if ((input.trial_interval == null) !== (input.trial_interval_count == null)) {
    throw RequestValidationError.field(
      ["body", input.trial_interval == null ? "trial_interval" : "trial_interval_count"],
      "trial_interval and trial_interval_count go together.",
    );
  }
}

/** A meter cycle must be recurring and divide the billing interval into whole cycles. */
export function checkMeterInterval(
  input: {
    recurring_interval?: Interval | null | undefined;
    recurring_interval_count?: number | null | undefined;
    meter_interval?: Interval | null | undefined;
    meter_interval_count?: number | null | undefined;
  },
  recurring: boolean,
) {
  if (input.meter_interval == null) {
    if (input.meter_interval_count != null)
      throw RequestValidationError.field(
        ["body", "meter_interval_count"],
        "meter_interval_count needs a meter_interval.",
      );
    return;
  }
  if (!recurring || !input.recurring_interval)
    throw RequestValidationError.field(
      ["body", "meter_interval"],
      "One-time products don't have a meter cycle.",
    );
  const meter = { interval: input.meter_interval, count: input.meter_interval_count ?? 1 };
  const billing = {
    interval: input.recurring_interval,
    count: input.recurring_interval_count ?? 1,
  };
  if (!dividesEvenly(meter, billing))
    throw RequestValidationError.field(
      ["body", "meter_interval"],
      `A meter cycle of ${meter.count} ${meter.interval}(s) must divide the billing interval of ${billing.count} ${billing.interval}(s) evenly.`,
    );
}
