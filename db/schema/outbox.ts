// The webhook outbox: one row per event, written in the same transaction as the change it reports.
// `seq` orders events; delivery state lives with the webhooks module's own tables.
import { bigserial, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id } from "./columns.ts";

export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: id(),
    seq: bigserial("seq", { mode: "number" }).notNull().unique(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    payload: jsonb("payload").$type<{ type: string; timestamp: string; data: unknown }>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_events_org_seq_idx").on(t.organizationId, t.seq)],
);
