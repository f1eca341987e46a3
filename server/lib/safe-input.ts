// Input PostgreSQL cannot store, refused before any handler sees it. A NUL character (U+0000) is
// refused by text columns and by jsonb ("invalid byte sequence for encoding UTF8: 0x00"), and a lone
// UTF-16 surrogate by jsonb, so either would surface as a 500 from whichever query met it first.
// One check over the parsed body and query (here) and the path parameters (validation.ts) answers
// a 422 with the field's `loc` instead, whatever the route.
import type { RequestHandler } from "express";
import { ApiError, RequestValidationError, type ValidationIssue } from "./errors.ts";

/** Deeper bodies are refused: nothing in the API nests this far, and walking them costs stack. */
export const MAX_BODY_DEPTH = 32;

// In a `u` regex a paired surrogate is one code point, so only a lone one is category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why PostgreSQL would refuse this string, or null when it can store it. */
export function unstorable(text: string): ValidationIssue | null {
  if (text.includes("\u0000"))
    return {
      loc: [],
      msg: "String should not contain the NUL character (U+0000)",
      type: "string_nul",
    };
  if (LONE_SURROGATE.test(text))
    return { loc: [], msg: "String should be well-formed Unicode", type: "string_unicode" };
  return null;
}

function at(loc: (string | number)[], issue: ValidationIssue): RequestValidationError {
  return new RequestValidationError([{ ...issue, loc }]);
}

/** Walks a parsed JSON value without recursion; throws a 422 at the first unstorable key or string. */
export function assertStorable(value: unknown, prefix: (string | number)[]): void {
  const stack: { value: unknown; loc: (string | number)[] }[] = [{ value, loc: prefix }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === "string") {
      const issue = unstorable(v);
      if (issue) throw at(item.loc, issue);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (item.loc.length - prefix.length >= MAX_BODY_DEPTH)
      throw at(item.loc, {
        loc: [],
        msg: `Input should not nest deeper than ${MAX_BODY_DEPTH} levels`,
        type: "too_deep",
      });
    if (Array.isArray(v)) {
      for (const [i, child] of v.entries()) stack.push({ value: child, loc: [...item.loc, i] });
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      const issue = unstorable(key);
      if (issue) throw at([...item.loc, key], issue);
      stack.push({ value: child, loc: [...item.loc, key] });
    }
  }
}

/** Refuses query strings that carry an unstorable string, as a 422 with its loc (every route). */
export const storableQuery: RequestHandler = (req, _res, next) => {
  assertStorable(req.query, ["query"]);
  next();
};

/** Refuses parsed JSON bodies that carry an unstorable key or string, as a 422 with its loc. */
export const storableInput: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined) assertStorable(req.body, ["body"]);
  next();
};

/**
 * Refuses an API request that sends a body which is not JSON (a form, text) with a 415: it used to
 * be read as no body at all, so `cancel_at_period_end=true` sent as a form answered 200 and did
 * nothing. The OAuth 2 endpoints take forms (they parse their own).
 */
export const jsonBodies: RequestHandler = (req, _res, next) => {
  const hasBody =
    Number(req.headers["content-length"] ?? 0) > 0 ||
    req.headers["transfer-encoding"] !== undefined;
  if (!hasBody || req.body !== undefined || req.path.startsWith("/oauth2/")) return next();
  throw new ApiError(
    415,
    "UnsupportedMediaType",
    "The request body must be JSON, sent with Content-Type: application/json.",
  );
};
