// The errors of draft orders, with Polar's names and statuses (orders:create, orders:finalize).
import { ApiError } from "../../lib/errors.ts";

export class OffSessionChargesNotEnabled extends ApiError {
  constructor() {
    super(
      403,
      "OffSessionChargesNotEnabled",
      "Off-session charges are not enabled for this organization: set feature_settings.off_session_charges_enabled.",
    );
  }
}

export class OrderNotDraft extends ApiError {
  constructor(status: string) {
    super(
      412,
      "OrderNotDraft",
      `The order is ${status}, not a draft: only a draft can be finalized.`,
    );
  }
}

export class PaymentFailed extends ApiError {
  constructor(detail: string) {
    super(402, "PaymentFailed", detail);
  }
}

export class PaymentActionRequired extends ApiError {
  constructor() {
    super(
      402,
      "PaymentActionRequired",
      "The payment needs the customer to authenticate it, which cannot happen off-session.",
    );
  }
}

export class OrganizationNotReadyForPayments extends ApiError {
  constructor() {
    super(
      403,
      "OrganizationNotReadyForPayments",
      "This server takes no payments (TILL_PAYMENTS=none).",
    );
  }
}
