// Idempotency-Key records for /v1 writes: one row per (scope, key) — the caller's organization,
// user or customer session — holding the request's fingerprint and, once it finished below 500,
// the answer replayed to a retry. Rows older than a day are dead (see lib/idempotency.ts).
import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns.ts";

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** sha256 of method, path and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    /** Null while the first request runs. */
    status: integer("status"),
    contentType: text("content_type"),
    body: text("body"),
    createdAt: tstz("created_at").notNull(),
    /** When the request holding the key started; a holder gone this long has died. */
    lockedAt: tstz("locked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);
