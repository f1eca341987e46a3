// Every mail till sends is recorded here first; without SMTP it is the only place it goes.
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./columns.ts";

export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: id(),
    kind: text("kind").notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    link: text("link"),
    sentAt: tstz("sent_at"),
    error: text("error"),
    /** The SMTP server refused the message for good (a 5xx reply, kept in error): never retried. */
    rejectedAt: tstz("rejected_at"),
    /**
     * A mail a job sends (a receipt: its order and kind) is written once under this key, so a job
     * run again after its worker died finds the row instead of sending the mail a second time.
     */
    dedupKey: text("dedup_key"),
    createdAt: createdAt(),
  },
  (t) => [
    index("email_outbox_created_idx").on(t.createdAt),
    uniqueIndex("email_outbox_dedup_key_idx").on(t.dedupKey),
  ],
);
