// OAuth 2.0 errors (RFC 6749 §5.2): the token, revoke and introspect endpoints answer
// {"error": code, "error_description": text} as OAuth clients expect, not Polar's {"error", "detail"}.
import { ApiError } from "../../lib/errors.ts";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type";

export class OAuthError extends ApiError {
  readonly code: OAuthErrorCode;
  /** Whether the app's redirect URI was verified, so the browser may be sent back with the error. */
  readonly redirectable: boolean;

  constructor(code: OAuthErrorCode, description: string, redirectable = false) {
    const status = code === "invalid_client" ? 401 : 400;
    super(
      status,
      code,
      description,
      code === "invalid_client" ? { "www-authenticate": "Basic" } : {},
    );
    this.code = code;
    this.redirectable = redirectable;
  }

  override toBody() {
    return { error: this.code, error_description: this.detail as string };
  }
}
