// The seats API's refusals, named and statused as Polar's customer_seat errors.
import { ApiError } from "../../lib/errors.ts";

export class SeatNotAvailable extends ApiError {
  constructor(detail = "No seats are available on this purchase.") {
    super(400, "SeatNotAvailable", detail);
  }
}

export class SeatAlreadyAssigned extends ApiError {
  constructor(email: string) {
    super(400, "SeatAlreadyAssigned", `A seat is already assigned to ${email}.`);
  }
}

export class SeatNotPending extends ApiError {
  constructor() {
    super(400, "SeatNotPending", "The seat is not in pending status.");
  }
}

export class InvalidInvitationToken extends ApiError {
  constructor() {
    super(400, "InvalidInvitationToken", "Invalid or expired invitation token.");
  }
}

export class InvalidSeatAssignmentRequest extends ApiError {
  constructor(detail: string) {
    super(400, "InvalidSeatAssignmentRequest", detail);
  }
}

export class CustomerNotFound extends ApiError {
  constructor(identifier: string) {
    super(404, "CustomerNotFound", `Customer not found: ${identifier}`);
  }
}
