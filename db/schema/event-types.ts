// Event types: a name seen in ingested events, with the label the seller gives it. A row is made the
// first time the name is listed, so it has an id to PATCH; its statistics come from the events.
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, timestamps } from "./columns.ts";
import { organizationRef } from "./owned.ts";

export const eventTypes = pgTable(
  "event_types",
  {
    id: id(),
    organizationId: organizationRef(),
    name: text("name").notNull(),
    label: text("label"),
    labelPropertySelector: text("label_property_selector"),
    ...timestamps(),
  },
  (t) => [uniqueIndex("event_types_org_name_uq").on(t.organizationId, t.name)],
);
