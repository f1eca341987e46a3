// The subscription update's refusals, named, statused and worded as Polar's subscription errors.
import { ApiError } from "../../lib/errors.ts";

export class AlreadyCanceledSubscription extends ApiError {
  constructor() {
    super(
      403,
      "AlreadyCanceledSubscription",
      "This subscription is already canceled or will be at the end of the period.",
    );
  }
}

export class CannotPauseSubscription extends ApiError {
  constructor() {
    super(409, "CannotPauseSubscription", "This subscription cannot be paused.");
  }
}

export class NoScheduledPause extends ApiError {
  constructor() {
    super(409, "NoScheduledPause", "This subscription is not scheduled to be paused.");
  }
}

export class NotPausedSubscription extends ApiError {
  constructor() {
    super(409, "NotPausedSubscription", "This subscription is not paused.");
  }
}

export class InactiveSubscription extends ApiError {
  constructor(id: string) {
    super(403, "InactiveSubscription", `Subscription ${id} is not active.`);
  }
}
