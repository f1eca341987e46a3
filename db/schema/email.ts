// Every mail till sends is recorded here first; without SMTP it is the only place it goes.
import { index, pgTable, text } from "drizzle-orm/pg-core";
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
    createdAt: createdAt(),
  },
  (t) => [index("email_outbox_created_idx").on(t.createdAt)],
);
