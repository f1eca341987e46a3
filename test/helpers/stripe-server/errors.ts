// Stripe's error shape: {"error": {"type", "code", "decline_code", "message", "param", …}}.
export class StripeApiError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(String(body.message));
    this.status = status;
    this.body = body;
  }
}

export const invalidRequest = (message: string, param?: string, code?: string) =>
  new StripeApiError(400, {
    type: "invalid_request_error",
    message,
    ...(param ? { param } : {}),
    ...(code ? { code } : {}),
  });

export const missing = (kind: string, id: string, param?: string) =>
  new StripeApiError(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    message: `No such ${kind}: '${id}'`,
    ...(param ? { param } : {}),
  });

export const cardError = (
  code: string,
  declineCode: string | null,
  message: string,
  extra: Record<string, unknown>,
) =>
  new StripeApiError(402, {
    type: "card_error",
    code,
    ...(declineCode ? { decline_code: declineCode } : {}),
    message,
    ...extra,
  });
