// The sandbox clock of each organization: how far its billing time runs ahead of the real clock.
// Only ever moved forward; absent means no offset. advancing_until leases the clock to the one
// advance running, so two advances never start from the same time.
import { bigint, pgTable, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { tstz } from "./columns.ts";

export const sandboxClocks = pgTable("sandbox_clocks", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  offsetMs: bigint("offset_ms", { mode: "number" }).notNull().default(0),
  modifiedAt: tstz("modified_at"),
  advancingUntil: tstz("advancing_until"),
});
