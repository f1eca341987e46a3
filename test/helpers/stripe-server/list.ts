// Stripe's list pagination: `limit` (1 to 100, default 10) objects after `starting_after` or before
// `ending_before` (ids of objects in the list), with `has_more` saying whether more follow.
import { invalidRequest, missing } from "./errors.ts";
import { type Form, str } from "./form.ts";

export function pageOf<T extends { id: string }>(all: T[], form: Form, url: string, kind: string) {
  const raw = str(form, "limit");
  const limit = raw === undefined ? 10 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidRequest(
      "Invalid integer: limit must be between 1 and 100.",
      "limit",
      "parameter_invalid_integer",
    );
  const after = str(form, "starting_after");
  const before = str(form, "ending_before");
  const at = (id: string, param: string) => {
    const i = all.findIndex((o) => o.id === id);
    if (i < 0) throw missing(kind, id, param);
    return i;
  };
  let data: T[];
  let hasMore: boolean;
  if (before) {
    const end = at(before, "ending_before");
    data = all.slice(Math.max(0, end - limit), end);
    hasMore = end - limit > 0;
  } else {
    const start = after ? at(after, "starting_after") + 1 : 0;
    data = all.slice(start, start + limit);
    hasMore = start + limit < all.length;
  }
  return { object: "list" as const, url, data, has_more: hasMore };
}
