// Typed errors with Polar's wire names. Services throw these; one middleware renders them as
// {"error": Name, "detail": ...}, so a route never builds an error body by hand.
import type { ErrorRequestHandler, RequestHandler } from "express";
import { z } from "zod";
import { isDatabaseUnavailable } from "./db-errors.ts";

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly detail: string | ValidationIssue[];
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    error: string,
    detail: string | ValidationIssue[],
    headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : `${error}: ${detail.map((d) => d.msg).join("; ")}`);
    this.status = status;
    this.error = error;
    this.detail = detail;
    this.headers = headers;
  }

  /** The response body; protocols with their own error shape (OAuth) override it. */
  toBody(): Record<string, unknown> {
    return { error: this.error, detail: this.detail };
  }
}

export class ResourceNotFound extends ApiError {
  constructor(detail = "Not found") {
    super(404, "ResourceNotFound", detail);
  }
}

export class NotPermitted extends ApiError {
  constructor(detail = "You don't have the permission to do this.") {
    super(403, "NotPermitted", detail);
  }
}

export class Unauthorized extends ApiError {
  constructor(detail = "Unauthorized") {
    super(401, "Unauthorized", detail, { "www-authenticate": 'Bearer realm="till"' });
  }
}

export class ResourceAlreadyExists extends ApiError {
  constructor(detail = "This resource already exists.") {
    super(409, "ResourceAlreadyExists", detail);
  }
}

/** Polar's ResourceUnavailable: the resource is gone for this action (an ended subscription). */
export class ResourceUnavailable extends ApiError {
  constructor(detail = "Unavailable") {
    super(410, "ResourceUnavailable", detail);
  }
}

export class BadRequest extends ApiError {
  constructor(detail: string) {
    super(400, "BadRequest", detail);
  }
}

export class RequestValidationError extends ApiError {
  constructor(issues: ValidationIssue[]) {
    super(422, "RequestValidationError", issues);
  }

  /** One failing field, for rules that zod cannot express (uniqueness across rows, cross-field). */
  static field(
    loc: (string | number)[],
    msg: string,
    type = "value_error",
  ): RequestValidationError {
    return new RequestValidationError([{ loc, msg, type }]);
  }
}

export class ServiceUnavailable extends ApiError {
  constructor(detail: string, retryAfterSeconds = 2) {
    super(503, "ServiceUnavailable", detail, { "retry-after": String(retryAfterSeconds) });
  }
}

/** zod issue codes mapped to the type names Polar's (pydantic) validation errors use. */
function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return "missing";
      return isFraction(issue, input) ? "int_from_float" : `${issue.expected}_type`;
    case "too_small":
      return issue.origin === "string"
        ? "string_too_short"
        : issue.origin === "array"
          ? "too_short"
          : "greater_than_equal";
    case "too_big":
      return issue.origin === "string"
        ? "string_too_long"
        : issue.origin === "array"
          ? "too_long"
          : "less_than_equal";
    case "invalid_format":
      return issue.format === "regex" ? "string_pattern_mismatch" : `${issue.format}_parsing`;
    case "invalid_value":
      return "enum";
    case "unrecognized_keys":
      return "extra_forbidden";
    case "invalid_union":
      return "union_tag_invalid";
    case "custom":
      // A refinement may name Polar's type itself (query.ts's integers: int_parsing).
      return typeof issue.params?.type === "string" ? issue.params.type : "value_error";
    default:
      return "value_error";
  }
}

/** A number with a fractional part where an integer is expected (`10.5`), pydantic's int_from_float. */
function isFraction(issue: z.core.$ZodIssue, input: unknown): boolean {
  return (
    issue.code === "invalid_type" &&
    issue.expected === "int" &&
    typeof input === "number" &&
    Number.isFinite(input)
  );
}

function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === "invalid_type" && input === undefined) return "Field required";
  if (isFraction(issue, input))
    return "Input should be a valid integer, got a number with a fractional part";
  return issue.message;
}

export function fromZodError(
  error: z.ZodError,
  prefix: (string | number)[],
  root: unknown,
): RequestValidationError {
  return new RequestValidationError(
    error.issues.map((issue) => {
      const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
      const input = path.reduce<unknown>(
        (value, key) =>
          value && typeof value === "object"
            ? (value as Record<string | number, unknown>)[key]
            : undefined,
        root,
      );
      return {
        loc: [...prefix, ...path],
        msg: issueMessage(issue, input),
        type: issueType(issue, input),
      };
    }),
  );
}

export interface ErrorLog {
  error(obj: object, msg: string): void;
}

/** Unknown routes answer in Polar's shape rather than Express's HTML page. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  const hint = req.path.includes("//")
    ? " (the path has a repeated slash: check the client's base URL)"
    : "";
  next(new ResourceNotFound(`No route for ${req.method} ${req.path}${hint}`));
};

/** The one place errors become HTTP responses. Stacks go to the log, never to the client. */
export function errorHandler(): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const apiError = toApiError(err);
    if (!apiError) {
      req.log.error({ err }, "unhandled error");
      if (res.headersSent) return void res.end();
      res.status(500).json({
        error: "InternalServerError",
        detail: `Something went wrong on our side. Reference: ${req.id}`,
      });
      return;
    }
    if (res.headersSent) return void res.end();
    if (apiError.status >= 500) req.log.error({ err }, apiError.message);
    res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
  };
}

interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
  body?: string;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return (
    typeof err === "object" &&
    err !== null &&
    typeof (err as { type?: unknown }).type === "string" &&
    "expose" in err
  );
}

function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isDatabaseUnavailable(err))
    return new ServiceUnavailable("The database is unavailable; retry shortly.");
  if (err instanceof z.ZodError) return fromZodError(err, ["body"], undefined);
  // The router could not percent-decode a path parameter (`/v1/products/%E0%A4%A`).
  if (err instanceof URIError && (err as { status?: unknown }).status === 400)
    return RequestValidationError.field(["path"], "The path is not valid percent-encoding.");
  if (isBodyParserError(err)) {
    switch (err.type) {
      case "entity.parse.failed":
        return new RequestValidationError([
          {
            loc: ["body"],
            msg: "JSON decode error: the body is not valid JSON",
            type: "json_invalid",
          },
        ]);
      case "entity.too.large":
        return new ApiError(
          413,
          "PayloadTooLarge",
          `The request body is larger than the limit of ${err.limit} bytes.`,
        );
      case "encoding.unsupported":
      case "charset.unsupported":
        return new ApiError(415, "UnsupportedMediaType", "Send the body as UTF-8 JSON.");
      default:
        return new ApiError(err.status ?? 400, "BadRequest", "The request body could not be read.");
    }
  }
  // A compressed body that does not inflate (Content-Encoding: gzip, deflate or br): the body
  // parser hands on zlib's error, marked as the client's (expose, 400) but without a type.
  if (isExposedBadRequest(err))
    return new ApiError(
      400,
      "BadRequest",
      /^Z_/.test(String(err.code)) || err.message === "Decompression failed"
        ? "The request body could not be decompressed: it does not match its Content-Encoding."
        : "The request body could not be read.",
    );
  return null;
}

function isExposedBadRequest(err: unknown): err is { code?: unknown; message?: unknown } {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { expose?: unknown; status?: unknown };
  return e.expose === true && e.status === 400;
}
