// The webhook outbox: one row per event, written in the same transaction as the change it reports.
// `seq` orders events; delivery state lives with the webhooks module's own tables (webhooks.ts).
import { sql } from "drizzle-orm";
import { bigserial, index, json, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, tstz } from "./columns.ts";

export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: id(),
    seq: bigserial("seq", { mode: "number" }).notNull().unique(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    payload: json("payload").$type<{ type: string; timestamp: string; data: unknown }>().notNull(),
    createdAt: createdAt(),
    /** Set once the event has been fanned out to its endpoints (see webhooks/dispatcher.ts). */
    dispatchedAt: tstz("dispatched_at"),
  },
  (t) => [
    index("webhook_events_org_seq_idx").on(t.organizationId, t.seq),
    index("webhook_events_undispatched_idx").on(t.seq).where(sql`${t.dispatchedAt} is null`),
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);
