// The owner columns most of till's sales tables start with: the organization (its rows go with it)
// and the customer.
import { uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { customers } from "./customers.ts";

export const organizationRef = () =>
  uuid("organization_id")
    .notNull()
    .references(() => organization.id, { onDelete: "cascade" });

export const customerRef = () =>
  uuid("customer_id")
    .notNull()
    .references(() => customers.id);
