// Column helpers shared by till's own tables: UUID ids, timestamptz audit columns.
import { sql } from "drizzle-orm";
import { timestamp, uuid } from "drizzle-orm/pg-core";

export const id = () => uuid("id").primaryKey().default(sql`gen_random_uuid()`);
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
export const createdAt = () => tstz("created_at").notNull().defaultNow();
export const modifiedAt = () => tstz("modified_at");
export const timestamps = () => ({ createdAt: createdAt(), modifiedAt: modifiedAt() });
